import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closeFrame, FrameBoundary } from './ws-frames.ts';

/** A frame as a server sends it (or masked, as a client does). */
function frame(payload: Buffer, { opcode = 1, masked = false } = {}): Buffer {
  const n = payload.length;
  const ext = n < 126 ? Buffer.alloc(0) : n < 65536 ? Buffer.alloc(2) : Buffer.alloc(8);
  if (n >= 126 && n < 65536) ext.writeUInt16BE(n);
  if (n >= 65536) ext.writeBigUInt64BE(BigInt(n));
  const head = Buffer.from([0x80 | opcode, (masked ? 0x80 : 0) | (n < 126 ? n : n < 65536 ? 126 : 127)]);
  return Buffer.concat([head, ext, masked ? Buffer.from([1, 2, 3, 4]) : Buffer.alloc(0), payload]);
}

describe('FrameBoundary', () => {
  it('is at a boundary only between whole frames, whatever the chunking', () => {
    const stream = Buffer.concat([
      frame(Buffer.from('br_x')),
      frame(Buffer.alloc(300, 7), { opcode: 2 }),
      frame(Buffer.alloc(70_000, 1)),
      frame(Buffer.from('ping'), { opcode: 9, masked: true }),
      frame(Buffer.alloc(0)),
    ]);
    const ends = new Set<number>();
    let at = 0;
    for (const f of [6, 304, 70_010, 10, 2]) ends.add((at += f));
    assert.equal(at, stream.length);
    for (const size of [1, 2, 3, 7, 64, 1000, stream.length]) {
      const b = new FrameBoundary();
      assert.equal(b.atBoundary, true);
      // Byte by byte is the strictest check: the answer after every prefix.
      if (size === 1) {
        for (let i = 0; i < stream.length; i++) {
          b.push(stream.subarray(i, i + 1));
          assert.equal(b.atBoundary, ends.has(i + 1), `after ${i + 1} bytes`);
        }
        continue;
      }
      for (let i = 0; i < stream.length; i += size) b.push(stream.subarray(i, i + size));
      assert.equal(b.atBoundary, true, `chunks of ${size}`);
    }
  });

  it('is not at a boundary inside a header or a payload', () => {
    const b = new FrameBoundary();
    b.push(Buffer.from([0x81]));
    assert.equal(b.atBoundary, false);
    b.push(Buffer.from([126, 0x01]));
    assert.equal(b.atBoundary, false);
    b.push(Buffer.from([0x00]));
    assert.equal(b.atBoundary, false);
    b.push(Buffer.alloc(255));
    assert.equal(b.atBoundary, false);
    b.push(Buffer.alloc(1));
    assert.equal(b.atBoundary, true);
  });

  it('gives up on a length no frame can have', () => {
    const b = new FrameBoundary();
    b.push(Buffer.from([0x82, 127, 0xff, 0, 0, 0, 0, 0, 0, 0]));
    assert.equal(b.atBoundary, false);
  });

  it('notices a close frame going by', () => {
    const b = new FrameBoundary();
    b.push(frame(Buffer.from('hello')));
    assert.equal(b.closeSeen, false);
    b.push(closeFrame(4410, 'stopped through the API').subarray(0, 1));
    assert.equal(b.closeSeen, false);
    b.push(closeFrame(4410, 'stopped through the API').subarray(1));
    assert.equal(b.closeSeen, true);
    assert.equal(b.atBoundary, true);
  });

  it('writes a close frame with its code and a cut reason', () => {
    const f = closeFrame(4502, 'node lost');
    assert.deepEqual([...f.subarray(0, 4)], [0x88, 11, 0x11, 0x96]);
    assert.equal(f.subarray(4).toString(), 'node lost');
    assert.equal(closeFrame(4502, 'x'.repeat(200)).length, 4 + 123);
  });
});
