import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameEnd, readFrames, textFrame } from './ws-frames.ts';

describe('WebSocket frames', () => {
  it('round-trips masked and unmasked text frames of every length class', () => {
    for (const n of [0, 5, 125, 126, 65535, 65536, 200_000]) {
      const text = 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2);
      for (const masked of [true, false]) {
        const frame = textFrame(text, { masked });
        const { frames, rest } = readFrames(frame, 1 << 30);
        assert.equal(frames.length, 1);
        assert.equal(rest.length, 0);
        assert.equal(frames[0]!.payload.toString('utf8'), text);
        assert.equal(frames[0]!.fin, true);
        assert.equal(frameEnd(frame, 0)?.end, frame.length);
      }
    }
  });

  it('keeps incomplete frames for later, byte by byte', () => {
    const a = textFrame('first', { masked: true });
    const b = textFrame('second'.repeat(100), { masked: true });
    const all = Buffer.concat([a, b]);
    let buffer: Buffer = Buffer.alloc(0);
    const seen: string[] = [];
    for (const byte of all) {
      buffer = Buffer.concat([buffer, Buffer.from([byte])]);
      const r = readFrames(buffer, 1 << 20);
      seen.push(...r.frames.map((f) => f.payload.toString()));
      buffer = r.rest;
    }
    assert.deepEqual(seen, ['first', 'second'.repeat(100)]);
    assert.equal(frameEnd(all.subarray(0, 1), 0), null);
  });

  it('refuses a frame over the size limit', () => {
    assert.throws(() => readFrames(textFrame('x'.repeat(100), { masked: true }), 99), RangeError);
  });
});
