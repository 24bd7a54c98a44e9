import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFrame, encodeFrame, parseClientMessage, type FrameMeta } from './live.ts';

describe('live protocol', () => {
  it('accepts well-formed messages and fills defaults', () => {
    const r = parseClientMessage(JSON.stringify({ type: 'mouse', action: 'move', x: 1, y: 2 }));
    assert.ok(r.ok);
    assert.deepEqual(r.message, { type: 'mouse', action: 'move', x: 1, y: 2, button: 'none', buttons: 0, clickCount: 0, modifiers: 0 });
    assert.ok(parseClientMessage('{"type":"control","action":"grant","viewerId":"v1"}').ok);
  });

  it('takes a take of control without a viewer to name, and refuses an action it does not know', () => {
    const take = parseClientMessage('{"type":"control","action":"take"}');
    assert.ok(take.ok);
    assert.deepEqual(take.message, { type: 'control', action: 'take' });
    assert.equal(parseClientMessage('{"type":"control","action":"seize"}').ok, false);
  });

  it('takes a phone’s viewport with its mobile flag, a desktop one without, and refuses a flag that is not true or false', () => {
    const phone = parseClientMessage(JSON.stringify({ type: 'viewport', mode: 'follow', width: 390, height: 700, mobile: true }));
    assert.ok(phone.ok);
    assert.deepEqual(phone.message, { type: 'viewport', mode: 'follow', width: 390, height: 700, mobile: true });
    const desk = parseClientMessage(JSON.stringify({ type: 'viewport', mode: 'fixed', width: 1280, height: 720 }));
    assert.ok(desk.ok);
    assert.equal((desk.message as { mobile: boolean }).mobile, false);
    const bad = parseClientMessage(JSON.stringify({ type: 'viewport', mode: 'follow', width: 390, height: 700, mobile: 'yes' }));
    assert.ok(!bad.ok);
    assert.match(bad.error, /^mobile: /);
  });

  it('refuses malformed and hostile messages with a reason', () => {
    for (const text of [
      '',
      'null',
      '[]',
      '{}',
      '{"type":"nope"}',
      '{"type":"mouse","action":"move","x":"1","y":2}',
      '{"type":"mouse","action":"move","x":1e308,"y":2}',
      '{"type":"key","action":"down","key":"' + 'a'.repeat(100) + '","code":"KeyA"}',
      '{"type":"tab","action":"switch","tabId":"../x"}',
      '{"type":"text","text":""}',
      '{"__proto__":{"type":"ping"}}',
      '{"type":"touch","action":"start","points":' + JSON.stringify(Array(11).fill({ id: 1, x: 1, y: 1 })) + ',"modifiers":0}',
    ]) {
      const r = parseClientMessage(text);
      assert.equal(r.ok, false, text.slice(0, 80));
      if (!r.ok) assert.ok(r.error.length > 0);
    }
  });

  it('survives thousands of random messages', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)] as T;
    const values = [null, true, 0, -1, 1e9, NaN, '', 'x', 'left', 'down', [], {}, { a: 1 }, 'a'.repeat(5000)];
    const types = ['mouse', 'key', 'wheel', 'text', 'tab', 'control', 'navigate', 'touch', 'ping', 'hello', 'x'];
    for (let i = 0; i < 5000; i++) {
      const msg: Record<string, unknown> = { type: pick(types) };
      for (const k of ['action', 'x', 'y', 'key', 'code', 'text', 'url', 'tabId', 'points', 'modifiers', 't', 'v'])
        if (rand() < 0.5) msg[k] = pick(values);
      const r = parseClientMessage(JSON.stringify(msg));
      assert.equal(typeof r.ok, 'boolean');
    }
  });

  it('round-trips binary frames', () => {
    const meta: FrameMeta = {
      seq: 3,
      tabId: 'T',
      deviceWidth: 1280,
      deviceHeight: 720,
      offsetTop: 0,
      pageScaleFactor: 1,
      scrollOffsetX: 0,
      scrollOffsetY: 5,
      timestamp: 1,
      relayedAt: 2,
    };
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
    const decoded = decodeFrame(encodeFrame(meta, jpeg));
    assert.deepEqual(decoded.meta, meta);
    assert.deepEqual([...decoded.jpeg], [...jpeg]);
  });
});
