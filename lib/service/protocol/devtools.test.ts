import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judge } from '../browser/cdp-policy.ts';
import { DEVTOOLS_CLOSE, isMalformed, parseClientMessage, refusalReply, type ClientMessage, type MalformedMessage } from './devtools.ts';

const folders = { downloads: '/downloads', uploads: '/uploads' };

function parsed(text: string): ClientMessage {
  const m = parseClientMessage(text);
  assert.ok(!isMalformed(m), `${text} should parse, got ${JSON.stringify(m)}`);
  return m;
}

function malformed(text: string, reason?: RegExp): MalformedMessage {
  const m = parseClientMessage(text);
  assert.ok(isMalformed(m), `${text} should be malformed, got ${JSON.stringify(m)}`);
  if (reason) assert.match(m.reason, reason, text);
  return m;
}

describe('parseClientMessage: valid messages', () => {
  it('parses id and method', () => {
    assert.deepEqual(parsed('{"id":1,"method":"Page.enable"}'), { id: 1, method: 'Page.enable' });
    assert.deepEqual(parsed('{"id":0,"method":"Page.enable"}'), { id: 0, method: 'Page.enable' });
    assert.deepEqual(parsed(' \n{ "method" : "Page.enable" , "id" : 2 }\t'), { id: 2, method: 'Page.enable' });
  });

  it('keeps params and sessionId', () => {
    assert.deepEqual(parsed('{"id":3,"method":"Page.navigate","params":{"url":"https://x/"},"sessionId":"AB12_-cd"}'), {
      id: 3,
      method: 'Page.navigate',
      params: { url: 'https://x/' },
      sessionId: 'AB12_-cd',
    });
    assert.deepEqual(parsed('{"id":3,"method":"Page.enable","params":{}}'), { id: 3, method: 'Page.enable', params: {} });
    const chromiumSession = 'E1F2A3B4C5D6E7F8A9B0C1D2E3F4A5B6';
    assert.equal(parsed(`{"id":1,"method":"Page.enable","sessionId":"${chromiumSession}"}`).sessionId, chromiumSession);
    assert.equal(parsed(`{"id":1,"method":"Page.enable","sessionId":"${'a'.repeat(128)}"}`).sessionId, 'a'.repeat(128));
  });

  it('accepts the largest safe id and integral numbers written otherwise', () => {
    assert.equal(parsed(`{"id":${Number.MAX_SAFE_INTEGER},"method":"Page.enable"}`).id, Number.MAX_SAFE_INTEGER);
    assert.equal(parsed('{"id":1e3,"method":"Page.enable"}').id, 1000);
    assert.equal(parsed('{"id":2.0,"method":"Page.enable"}').id, 2);
  });

  it('decodes escapes before judging: the policy sees the real method name', () => {
    const m = parsed('{"id":1,"method":"Page\\u002enavigate","params":{"url":"\\u0066ile:///etc/passwd"}}');
    assert.equal(m.method, 'Page.navigate');
    assert.equal(m.params?.url, 'file:///etc/passwd');
    assert.equal(judge(m, folders).action, 'refuse');
    const ext = parsed('{"id":1,"method":"\\u0045xtensions.loadUnpacked","params":{"path":"/"}}');
    assert.equal(ext.method, 'Extensions.loadUnpacked');
    assert.equal(judge(ext, folders).action, 'refuse');
  });

  it('judges what it returns for duplicate keys (the last one, as JSON.parse keeps)', () => {
    // The service never forwards the client's text: it sends JSON.stringify of this parsed
    // message, so Chromium sees exactly the params that were judged, whatever its own parser
    // would have done with the duplicates.
    const text = '{"id":1,"method":"Page.navigate","params":{"url":"file:///x"},"params":{"url":"https://ok"}}';
    const m = parsed(text);
    assert.deepEqual(m, { id: 1, method: 'Page.navigate', params: { url: 'https://ok' } });
    assert.deepEqual(judge(m, folders), { action: 'pass' });
    assert.equal(JSON.stringify(m), '{"id":1,"method":"Page.navigate","params":{"url":"https://ok"}}');

    const reversed = parsed('{"id":1,"method":"Page.navigate","params":{"url":"https://ok"},"params":{"url":"file:///x"}}');
    assert.equal(reversed.params?.url, 'file:///x');
    assert.equal(judge(reversed, folders).action, 'refuse');

    const methods = parsed('{"id":1,"method":"Runtime.evaluate","method":"Extensions.loadUnpacked","params":{"path":"/"}}');
    assert.equal(methods.method, 'Extensions.loadUnpacked');
    assert.equal(judge(methods, folders).action, 'refuse');

    const innerKeys = parsed('{"id":1,"method":"Page.navigate","params":{"url":"https://ok","url":"file:///x"}}');
    assert.equal(judge(innerKeys, folders).action, 'refuse');
  });

  it('keeps __proto__ in params as plain data', () => {
    const m = parsed('{"id":1,"method":"Page.navigate","params":{"__proto__":{"url":"file:///x"}}}');
    assert.equal(m.params?.url, undefined);
    assert.equal(Object.getPrototypeOf(m.params), Object.prototype);
  });
});

describe('parseClientMessage: malformed messages', () => {
  it('refuses text that is not JSON', () => {
    for (const text of [
      '',
      ' ',
      'x',
      '{',
      '{"id":1,"method":"Page.enable"',
      "{'id':1}",
      '{"id":1,"method":"Page.enable"}}',
      '{"id":1,"method":"Page.enable"}\u0000',
      '{"id":01,"method":"Page.enable"}',
      'NaN',
    ]) {
      assert.deepEqual(malformed(text), { reason: 'not JSON' }, JSON.stringify(text));
    }
  });

  it('refuses JSON that is not one object', () => {
    for (const text of ['null', '[]', '[{"id":1,"method":"Page.enable"}]', '1', '"Page.enable"', 'true'])
      malformed(text, /not a JSON object/);
  });

  it('refuses a missing or bad id', () => {
    for (const id of [
      '',
      ',"id":null',
      ',"id":1.5',
      ',"id":-1',
      ',"id":"1"',
      ',"id":[1]',
      ',"id":{}',
      ',"id":true',
      ',"id":9007199254740992',
      ',"id":9007199254740993',
      ',"id":1e400',
      ',"id":-1e400',
    ]) {
      const m = malformed(`{"method":"Page.enable"${id}}`, /id must be a non-negative integer/);
      assert.equal(m.id, undefined, 'no id to answer to');
    }
  });

  it('refuses a missing or bad method, keeping the id to answer to', () => {
    for (const method of [
      undefined,
      null,
      1,
      '',
      'Page',
      'Page.',
      '.enable',
      'Page.navigate ',
      ' Page.navigate',
      'Page..navigate',
      'Page.navigate.x',
      'Page/navigate',
      'Pa ge.navigate',
      'Page.navigate\u0000',
      'Page.nav\tigate',
      'Pâge.navigate',
      ['Page.enable'],
    ]) {
      const text = JSON.stringify(method === undefined ? { id: 5 } : { id: 5, method });
      assert.deepEqual(malformed(text, /method must be Domain.command/).id, 5, text);
    }
  });

  it('refuses params that are not an object', () => {
    for (const params of [[], ['https://x'], 'x', null, 1, true]) {
      const m = malformed(JSON.stringify({ id: 6, method: 'Page.navigate', params }), /params must be an object/);
      assert.equal(m.id, 6);
    }
  });

  it('refuses a sessionId that is not a session id', () => {
    for (const sessionId of [1, null, true, {}, [], '', 'a b', 'A"B', 'A,B', 'AB\u0000', 'ü', 'a/b', 'a.b', 'x'.repeat(129)]) {
      const m = malformed(JSON.stringify({ id: 7, method: 'Page.enable', sessionId }), /sessionId must be a session id string/);
      assert.equal(m.id, 7);
    }
  });

  it('refuses unknown top-level fields', () => {
    for (const [text, field] of [
      ['{"id":8,"method":"Page.enable","extra":1}', 'extra'],
      ['{"id":8,"method":"Page.enable","params":{},"result":{}}', 'result'],
      ['{"id":8,"method":"Page.enable","Params":{"url":"file:///x"}}', 'Params'],
      ['{"id":8,"method":"Page.enable","__proto__":{"sessionId":"X"}}', '__proto__'],
      ['{"id":8,"method":"Page.enable","constructor":{}}', 'constructor'],
    ] as const) {
      const m = malformed(text, /unknown field/);
      assert.equal(m.reason, `unknown field ${JSON.stringify(field)}`);
      assert.equal(m.id, 8);
    }
  });
});

describe('refusalReply', () => {
  it('answers like a Chromium error, to the same id', () => {
    const text = refusalReply({ id: 7 }, 'no');
    assert.deepEqual(JSON.parse(text), { id: 7, error: { code: -32000, message: 'Periscope: no' } });
    assert.doesNotMatch(text, /sessionId/);
  });

  it('keeps the session, last, as Chromium does', () => {
    const text = refusalReply({ id: 7, sessionId: 'S1' }, 'no');
    assert.deepEqual(JSON.parse(text), { id: 7, error: { code: -32000, message: 'Periscope: no' }, sessionId: 'S1' });
    assert.ok(text.endsWith(',"sessionId":"S1"}'));
  });

  it('escapes the reason', () => {
    const reason = 'a "quoted"\nreason \u0000';
    assert.equal((JSON.parse(refusalReply({ id: 1 }, reason)) as { error: { message: string } }).error.message, `Periscope: ${reason}`);
  });

  it("answers the policy's refusal of a parsed message", () => {
    const m = parsed('{"id":11,"method":"Page.navigate","params":{"url":"file:///etc/passwd"},"sessionId":"P1"}');
    const v = judge(m, folders);
    assert.equal(v.action, 'refuse');
    if (v.action !== 'refuse') return;
    const reply = JSON.parse(refusalReply(m, v.reason)) as { id: number; sessionId: string; error: { code: number; message: string } };
    assert.equal(reply.id, 11);
    assert.equal(reply.sessionId, 'P1');
    assert.match(reply.error.message, /^Periscope: Page.navigate: file: addresses are not allowed/);
  });
});

describe('DEVTOOLS_CLOSE', () => {
  it('uses distinct codes within the WebSocket ranges', () => {
    const codes = Object.values(DEVTOOLS_CLOSE).map((c) => c.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const { code, reason } of Object.values(DEVTOOLS_CLOSE)) {
      assert.ok((code >= 1000 && code <= 1014) || (code >= 4000 && code <= 4999), String(code));
      assert.ok(Buffer.byteLength(reason) <= 123, 'a close reason fits in a control frame');
    }
  });
});
