import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { closeStart, eventually, openStart, refusedStart } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** Open a WebSocket expecting a refusal; resolves with the status and JSON body. */
function refusedSocket(url: string, headers: Record<string, string>): Promise<{ status: number; body: { error?: unknown } }> {
  const socket = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => reject(new Error(`${url} was accepted`)));
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { error?: unknown } }));
    });
    socket.once('error', () => {});
  });
}

describe('bad input and limits on the browser flow', () => {
  let service: ServiceProcess;
  let token: string;
  let other: string;

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '1', BROWSER_CAPACITY: '3' });
    token = service.createKey({ name: 'one', maxInstances: 2 }).token;
    other = service.createKey({ name: 'two', maxInstances: 2 }).token;
  });
  after(() => service.stop());

  it('refuses /start without a valid key before the upgrade, with 401 and a JSON error', async () => {
    const revoked = service.createKey({ name: 'revoked' });
    service.keysCli(['revoke', revoked.id]);
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` },
      { authorization: `Bearer psk_0000000000000000_${'A'.repeat(43)}` },
      { authorization: `Bearer ${revoked.token}` },
    ];
    for (const headers of cases) {
      const r = await refusedStart(service.wsUrl, headers);
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.equal(typeof r.body.error, 'string');
    }
  });

  it('answers a plain GET /start with 426 and unknown socket paths with 404', async () => {
    const res = await fetch(`${service.url}/start`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 426);
    assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    const r = await refusedSocket(`${service.wsUrl}/nowhere`, { authorization: `Bearer ${token}` });
    assert.equal(r.status, 404);
  });

  it('validates X-Browser-ID on /json/version: missing and malformed 400, unknown 404', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const cases: [Record<string, string>, number][] = [
      [auth, 400],
      [{ ...auth, 'x-browser-id': '' }, 400],
      [{ ...auth, 'x-browser-id': 'br_short' }, 400],
      [{ ...auth, 'x-browser-id': 'xx_' + 'A'.repeat(32) }, 400],
      [{ ...auth, 'x-browser-id': `br_${'A'.repeat(31)}!` }, 400],
      [{ ...auth, 'x-browser-id': `br_${'A'.repeat(32)}` }, 404],
      [{ 'x-browser-id': `br_${'A'.repeat(32)}` }, 401],
    ];
    for (const [headers, status] of cases) {
      const res = await fetch(`${service.url}/json/version`, { headers });
      assert.equal(res.status, status, JSON.stringify(headers));
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    }
  });

  it("never lets one key reach another key's instance", async () => {
    const mine = await openStart(service.wsUrl, token);
    const theirs = { authorization: `Bearer ${other}`, 'x-browser-id': mine.id };
    const res = await fetch(`${service.url}/json/version`, { headers: theirs });
    assert.equal(res.status, 404);
    const url = ((await (await fetch(`${service.url}/json/version`, { headers: mine.headers })).json()) as { webSocketDebuggerUrl: string })
      .webSocketDebuggerUrl;
    assert.equal((await refusedSocket(url, theirs)).status, 404);
    // The right key with no id, a wrong id, or another instance's DevTools path is refused too.
    assert.equal((await refusedSocket(url, { authorization: `Bearer ${token}` })).status, 400);
    assert.equal((await refusedSocket(url, { ...mine.headers, authorization: 'Bearer nope' })).status, 401);
    const second = await openStart(service.wsUrl, token);
    assert.equal((await refusedSocket(url, second.headers)).status, 404, 'a DevTools path of another instance');
    assert.equal((await refusedSocket(`${service.wsUrl}/devtools/browser/../../etc`, mine.headers)).status, 404);
    const cdp = await RawCdp.connect(url, mine.headers);
    assert.ok((await cdp.send<{ product: string }>('Browser.getVersion')).product);
    await cdp.close();
    await closeStart(service.url, mine);
    await closeStart(service.url, second);
  });

  it("answers 429 past the key's concurrent-instance limit and 503 at machine capacity", async () => {
    const a = await openStart(service.wsUrl, token);
    const b = await openStart(service.wsUrl, token);
    const third = await refusedStart(service.wsUrl, { authorization: `Bearer ${token}` });
    assert.equal(third.status, 429);
    assert.match(String(third.body.error), /limit of 2 concurrent browsers/);
    assert.ok(third.headers['retry-after']);

    const c = await openStart(service.wsUrl, other); // capacity 3 is now used up
    const full = await refusedStart(service.wsUrl, { authorization: `Bearer ${other}` });
    assert.equal(full.status, 503);
    assert.match(String(full.body.error), /capacity/);

    // Closing one frees a slot for its key again.
    await closeStart(service.url, a);
    const again = await openStart(service.wsUrl, token);
    for (const s of [b, c, again]) await closeStart(service.url, s);
  });

  it('refuses a handshake that is not a WebSocket upgrade with 400', async () => {
    const logged = (msg: string) => service.logs.filter((l) => l.msg === msg).length;
    const provisioned = logged('instance provisioned');
    const { port } = new URL(service.url);
    const { connect } = await import('node:net');
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      [
        'GET /start HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Version: 13',
        `Authorization: Bearer ${token}`,
        '',
        '',
      ].join('\r\n'),
    );
    const head = await new Promise<string>((resolve) => socket.once('data', (c: Buffer) => resolve(c.toString())));
    assert.match(head, /^HTTP\/1\.1 400 /);
    assert.match(head, /Sec-WebSocket-Key/);
    socket.destroy();
    const live = await eventually(
      async () => ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { live: number } }).browsers.live,
      (n) => n === 0,
    );
    assert.equal(live, 0, 'no instance was provisioned for a bad handshake');
    assert.equal(logged('instance provisioned'), provisioned, 'none logged either');
    // Every instance the suite provisioned has ended: the log says so once its browser is gone,
    // which may be after /healthz stopped counting it.
    assert.equal(
      await eventually(
        () => logged('instance ended'),
        (n) => n === provisioned,
      ),
      provisioned,
    );
  });

  it('serves /healthz and Prometheus /metrics with the browser figures', async () => {
    const health = await fetch(`${service.url}/healthz`);
    assert.equal(health.status, 200);
    const text = await (await fetch(`${service.url}/metrics`)).text();
    for (const name of [
      'periscope_browser_instances_live',
      'periscope_browser_pool_size',
      'periscope_browser_provision_seconds_bucket',
      'periscope_cdp_proxy_bytes_total',
      'periscope_browser_start_refused_total',
    ]) {
      assert.match(text, new RegExp(`^${name}`, 'm'), name);
    }
    assert.match(text, /periscope_browser_start_refused_total\{status="401"\} [1-9]/);
    assert.match(text, /periscope_cdp_proxy_bytes_total\{direction="to_client"\} [1-9]/);
    const unknown = await fetch(`${service.url}/nope`, { method: 'DELETE' });
    assert.equal(unknown.status, 404);
    const wrong = await fetch(`${service.url}/healthz`, { method: 'POST' });
    assert.equal(wrong.status, 405);
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
  });
});
