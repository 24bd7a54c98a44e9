import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerCache } from './cache.ts';

const clock = (start = 1_000_000) => {
  const c = { t: start, now: () => c.t };
  return c;
};

describe('search answer cache', () => {
  it('serves an answer until its time is up, then loads again', async () => {
    const c = clock();
    const cache = new AnswerCache<string>({ entries: 10, ttlMs: 5_000, now: c.now });
    let calls = 0;
    const load = () => cache.load('k', async () => `v${++calls}`);
    assert.deepEqual(await load(), { value: 'v1', cached: false, storedAt: c.t });
    c.t += 4_999;
    assert.equal((await load()).cached, true);
    assert.equal(calls, 1);
    c.t += 1;
    const again = await load();
    assert.deepEqual([again.value, again.cached], ['v2', false]);
    assert.equal(cache.loads, 2);
  });

  it('holds at most `entries` answers, least recently used out first', async () => {
    const cache = new AnswerCache<number>({ entries: 3, ttlMs: 60_000 });
    for (const k of ['a', 'b', 'c']) await cache.load(k, async () => 1);
    assert.ok(cache.get('a'), 'touch a: b is now the oldest');
    await cache.load('d', async () => 1);
    assert.equal(cache.size, 3);
    assert.equal(cache.get('b'), undefined);
    for (const k of ['a', 'c', 'd']) assert.ok(cache.get(k), k);
    for (let i = 0; i < 100; i++) cache.set(`x${i}`, i);
    assert.equal(cache.size, 3);
  });

  it('with 0 entries remembers nothing', async () => {
    const cache = new AnswerCache<number>({ entries: 0, ttlMs: 60_000 });
    let calls = 0;
    await cache.load('k', async () => ++calls);
    await cache.load('k', async () => ++calls);
    assert.equal(calls, 2);
    assert.equal(cache.size, 0);
  });

  it('shares one load among concurrent requests for one key; the others count as cached', async () => {
    const cache = new AnswerCache<string>({ entries: 10, ttlMs: 60_000 });
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = async () => {
      calls++;
      await gate;
      return 'answer';
    };
    const all = Promise.all(Array.from({ length: 32 }, () => cache.load('k', loader)));
    const other = cache.load('other', async () => 'x');
    release();
    const got = await all;
    await other;
    assert.equal(calls, 1);
    assert.equal(got.filter((g) => !g.cached).length, 1);
    assert.ok(got.every((g) => g.value === 'answer'));
    assert.equal(cache.loads, 2);
  });

  it('does not remember a failure, and every waiter of a failed load gets its error', async () => {
    const cache = new AnswerCache<string>({ entries: 10, ttlMs: 60_000 });
    let calls = 0;
    const failing = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('upstream 502');
    };
    const results = await Promise.allSettled([cache.load('k', failing), cache.load('k', failing), cache.load('k', failing)]);
    assert.equal(calls, 1);
    assert.ok(results.every((r) => r.status === 'rejected' && /502/.test(String(r.reason))));
    assert.equal(cache.size, 0);
    assert.equal((await cache.load('k', async () => 'ok')).value, 'ok');
  });

  it('serves without storing what `keep` refuses', async () => {
    const cache = new AnswerCache<{ empty: boolean }>({ entries: 10, ttlMs: 60_000 });
    const a = await cache.load(
      'k',
      async () => ({ empty: true }),
      (v) => !v.empty,
    );
    assert.equal(a.cached, false);
    assert.equal(cache.size, 0);
  });
});
