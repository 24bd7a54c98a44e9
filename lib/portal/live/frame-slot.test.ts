import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameSlot } from './frame-slot.ts';

describe('FrameSlot', () => {
  it('keeps one frame in flight and only the newest waiting', () => {
    const sent: number[] = [];
    const done: ((err?: Error) => void)[] = [];
    const slot = new FrameSlot({ send: (data, cb) => (sent.push(data[0] as number), done.push(cb)) });
    for (let i = 1; i <= 5; i++) slot.offer(new Uint8Array([i]));
    assert.deepEqual(sent, [1]);
    assert.equal(slot.waitingBytes, 1);
    assert.equal(slot.dropped, 3, 'frames 2, 3 and 4 were replaced');
    done.shift()!();
    assert.deepEqual(sent, [1, 5]);
    done.shift()!();
    slot.offer(new Uint8Array([6]));
    assert.deepEqual(sent, [1, 5, 6]);
  });

  it('stops after a send error or close', () => {
    const sent: number[] = [];
    let cb: ((err?: Error) => void) | undefined;
    const slot = new FrameSlot({ send: (data, done) => (sent.push(data[0] as number), (cb = done)) });
    slot.offer(new Uint8Array([1]));
    slot.offer(new Uint8Array([2]));
    cb!(new Error('socket gone'));
    slot.offer(new Uint8Array([3]));
    assert.deepEqual(sent, [1]);
  });
});
