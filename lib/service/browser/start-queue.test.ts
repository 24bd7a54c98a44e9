import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StartQueue } from './start-queue.ts';

const key = (id: string) => ({ id });

describe('the start queue', () => {
  it('serves each key first come first served, and takes turns round the keys', async () => {
    const queue = new StartQueue<{ id: string }>();
    const served: string[] = [];
    const far = Date.now() + 60_000;
    const wait = (k: string, label: string) =>
      queue.wait(key(k), far, undefined, () => new Error('expired')).then(() => served.push(label));
    // One key's burst of three, then another key's single start.
    const all = [wait('a', 'a1'), wait('a', 'a2'), wait('a', 'a3'), wait('b', 'b1')];
    assert.equal(queue.size, 4);
    let room = 0;
    const take = () => (room > 0 ? (room--, true) : false);
    for (let i = 0; i < 4; i++) {
      room = 1;
      queue.dispatch(take);
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    assert.deepEqual(served, ['a1', 'b1', 'a2', 'a3'], 'b’s single start is not behind a’s whole burst');
    assert.equal(queue.size, 0);
  });

  it('passes over a key that has no room (its own limit) to serve another', async () => {
    const queue = new StartQueue<{ id: string }>();
    const far = Date.now() + 60_000;
    const served: string[] = [];
    void queue
      .wait(key('full'), far, undefined, () => new Error('x'))
      .then(() => served.push('full'))
      .catch(() => {});
    const other = queue.wait(key('other'), far, undefined, () => new Error('x')).then(() => served.push('other'));
    queue.dispatch((k) => k.id !== 'full');
    await other;
    assert.deepEqual(served, ['other']);
    assert.equal(queue.size, 1, 'the full key still waits');
    queue.clear(() => new Error('done'));
  });

  it('refuses with the expired error at the deadline, and takes a waiter whose client left out of the line', async () => {
    const queue = new StartQueue<{ id: string }>();
    await assert.rejects(
      queue.wait(key('a'), Date.now() + 20, undefined, () => new Error('at capacity')),
      /at capacity/,
    );
    assert.equal(queue.size, 0);

    const controller = new AbortController();
    const leaving = queue.wait(key('a'), Date.now() + 60_000, controller.signal, () => new Error('x'));
    const staying = queue.wait(key('a'), Date.now() + 60_000, undefined, () => new Error('x'));
    controller.abort(new Error('went away'));
    await assert.rejects(leaving, /went away/);
    assert.equal(queue.size, 1);
    let granted = 0;
    queue.dispatch(() => granted++ === 0);
    assert.ok((await staying) >= 0, 'the next in line got the room, not the one who left');
    assert.equal(granted, 1, 'asked once, for the one waiter left');
    assert.equal(queue.oldestWaitMs(), 0, 'no one waits');
  });

  it('refuses everyone when cleared, and says how long the first has waited', async () => {
    const queue = new StartQueue<{ id: string }>();
    const before = Date.now();
    const waiting = queue.wait(key('a'), Date.now() + 60_000, undefined, () => new Error('x'));
    const after = Date.now();
    const later = after + 60_000;
    const waited = queue.oldestWaitMs(later);
    assert.ok(waited >= later - after && waited <= later - before, `measured from when the first began to wait: ${waited}`);
    queue.clear(() => new Error('shutting down'));
    await assert.rejects(waiting, /shutting down/);
    assert.equal(queue.size, 0);
  });
});
