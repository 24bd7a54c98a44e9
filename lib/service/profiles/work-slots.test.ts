import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkSlots } from './work-slots.ts';

/** A piece of work that runs until the test lets it end. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('the profile work slots', () => {
  it('never runs more than its size at once, however many ask, and runs them all in the order they asked', async () => {
    const slots = new WorkSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 10 }, () => gate());
    const all = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await g.promise;
        running--;
      }),
    );
    await turn();
    assert.equal(running, 2);
    assert.equal(slots.waiting, 8);
    // Let them end out of order: each end lets exactly one more begin.
    for (const i of [1, 0, 3, 2, 5, 4, 7, 6, 9, 8]) {
      gates[i]?.open();
      await turn();
      assert.ok(running <= 2, `at most two run at once, ${running} did`);
    }
    await Promise.all(all);
    assert.equal(most, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(slots.running, 0);
  });

  it('frees the slot of a piece of work that fails', async () => {
    const slots = new WorkSlots(1);
    await assert.rejects(
      slots.run(async () => {
        throw new Error('unreadable');
      }),
      /unreadable/,
    );
    assert.equal(await slots.run(async () => 'next'), 'next');
  });

  it('takes a waiter whose signal aborts out of the line, without running it nor losing a slot', async () => {
    const slots = new WorkSlots(1);
    const holder = gate();
    const held = slots.run(() => holder.promise);
    const gone = new AbortController();
    let ran = false;
    const waiter = slots.run(async () => {
      ran = true;
    }, gone.signal);
    const behind = slots.run(async () => 'behind');
    await turn();
    assert.equal(slots.waiting, 2);
    gone.abort(new Error('the client went away'));
    await assert.rejects(waiter, /the client went away/);
    assert.equal(slots.waiting, 1);
    holder.open();
    await held;
    assert.equal(await behind, 'behind');
    assert.equal(ran, false);
    assert.equal(slots.running, 0);
    // Already aborted: refused at once.
    await assert.rejects(
      slots.run(async () => {}, gone.signal),
      /the client went away/,
    );
  });
});
