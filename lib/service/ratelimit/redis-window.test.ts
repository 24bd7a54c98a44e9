import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '#shared/errors.ts';
import { openRedis, redisReady, REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';
import { eventually } from '../../../tests/helpers/eventually.ts';
import { redisSkip, startRedis, type TestRedis } from '../../../tests/helpers/redis.ts';
import type { RateDecision } from './limiter.ts';
import { RedisSlidingWindowLimiter, type RedisWindowOptions } from './redis-window.ts';
import { SlidingWindowLimiter } from './sliding-window.ts';

/** The server's clock in ms, as the script reads it. */
async function serverMs(client: RedisClient): Promise<number> {
  const [s, us] = await client.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

describe('the sliding window in Redis', { skip: redisSkip() }, () => {
  let redis: TestRedis;
  const clients: RedisClient[] = [];
  let n = 0;
  /** A fresh key for each test, so tests cannot see each other's counts. */
  const freshKey = () => `key_${process.pid}_${++n}`;

  async function node(name: string): Promise<RedisClient> {
    const c = openRedis(redis.url, name);
    c.on('error', () => {});
    clients.push(c);
    await redisReady(c);
    return c;
  }
  const limiter = (client: RedisClient, opts: Partial<RedisWindowOptions> = {}) =>
    new RedisSlidingWindowLimiter(client, { scope: 'search', ...opts });

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  test('three nodes firing 60 requests at once for one key get exactly 40 allowed, each with its own remaining count', async () => {
    const nodes = await Promise.all(['node-1', 'node-2', 'node-3'].map(async (name) => limiter(await node(name))));
    for (let round = 0; round < 5; round++) {
      const key = freshKey();
      const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => (nodes[i % 3] as RedisSlidingWindowLimiter).take(key, 40)));
      const allowed = decisions.filter((d) => d.allowed);
      assert.equal(allowed.length, 40, `round ${round}`);
      // Atomic: no two allowed requests saw the same count.
      assert.deepEqual(
        allowed.map((d) => d.remaining).sort((a, b) => a - b),
        Array.from({ length: 40 }, (_, i) => i),
      );
      for (const d of decisions.filter((x) => !x.allowed)) {
        assert.equal(d.remaining, 0);
        assert.ok(d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 61, String(d.retryAfterSeconds));
      }
    }
  });

  test('keys of different API keys, and limits of different kinds, do not interfere', async () => {
    const client = await node('node-1');
    const search = limiter(client);
    const other = limiter(client, { scope: 'other' });
    const [a, b] = [freshKey(), freshKey()];
    for (let i = 0; i < 3; i++) assert.equal((await search.take(a, 3)).allowed, true);
    assert.equal((await search.take(a, 3)).allowed, false);
    const fresh = await search.take(b, 3);
    assert.equal(fresh.allowed, true);
    assert.equal(fresh.remaining, 2);
    assert.equal((await other.take(a, 3)).remaining, 2);
  });

  test('decisions are made on the Redis server clock, and a key holds one hash that expires', async () => {
    const client = await node('node-1');
    const l = limiter(client, { windowMs: 60_000, buckets: 60 });
    const key = freshKey();
    const before = await serverMs(client);
    const d = await l.take(key, 5);
    const afterMs = await serverMs(client);
    assert.ok(d.atMs >= before && d.atMs <= afterMs, `${before} <= ${d.atMs} <= ${afterMs}`);
    const stored = `${REDIS_PREFIX}rate:search:${key}`;
    assert.deepEqual(await client.hgetall(stored), { [String(Math.floor(d.atMs / 1000))]: '1' });
    const ttl = await client.pttl(stored);
    assert.ok(ttl > 59_000 && ttl <= 61_000, String(ttl));
  });

  test('an idle key vanishes from Redis once its requests have left the window', async () => {
    const client = await node('node-1');
    const l = limiter(client, { windowMs: 300, buckets: 3 });
    const key = freshKey();
    await l.take(key, 5);
    const stored = `${REDIS_PREFIX}rate:search:${key}`;
    assert.equal(await client.exists(stored), 1);
    assert.equal(
      await eventually(
        () => client.exists(stored),
        (e) => e === 0,
      ),
      0,
    );
  });

  test('the window frees bucket by bucket, when Retry-After says', async () => {
    const client = await node('node-1');
    const windowMs = 2_000;
    const buckets = 4;
    const bucketMs = windowMs / buckets;
    const bucket = (t: number) => Math.floor(t / bucketMs);
    const leavesAt = (t: number) => (bucket(t) + 1 + buckets) * bucketMs;
    const l = limiter(client, { windowMs, buckets });
    const key = freshKey();
    const first = await l.take(key, 2);
    // The second request in a later bucket than the first.
    await eventually(
      () => serverMs(client),
      (t) => bucket(t) > bucket(first.atMs),
    );
    const second = await l.take(key, 2);
    assert.ok(first.allowed && second.allowed);
    assert.ok(bucket(second.atMs) > bucket(first.atMs));
    const refused = await l.take(key, 2);
    assert.equal(refused.allowed, false);
    // Retry-After points at the first request's bucket leaving, rounded up to seconds.
    assert.equal(refused.retryAfterSeconds, Math.max(1, Math.ceil((leavesAt(first.atMs) - refused.atMs) / 1000)));
    assert.equal(refused.resetSeconds, Math.ceil((leavesAt(second.atMs) - refused.atMs) / 1000));

    // Polling (refused requests do not count) until one is allowed: when the first left, not before.
    const again = await eventually(
      () => l.take(key, 2),
      (d) => d.allowed,
      windowMs * 3,
    );
    assert.equal(again.allowed, true);
    assert.ok(again.atMs >= leavesAt(first.atMs), 'allowed only once the first request left');
    // Only the first request's place came back: the next place comes when the second leaves.
    const third = await eventually(
      () => l.take(key, 2),
      (d) => d.allowed,
      windowMs * 3,
    );
    assert.equal(third.allowed, true);
    assert.ok(third.atMs >= leavesAt(second.atMs), 'the second place came back only once the second request left');
  });

  test('the same request pattern gets the same decisions from Redis and from memory at the same instants', async () => {
    const client = await node('node-1');
    const windowMs = 1_000;
    const buckets = 10;
    const redisLimiter = limiter(client, { windowMs, buckets });
    const keys = [freshKey(), freshKey(), freshKey()];
    const limits = [3, 5, 8];
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const requests: { key: string; limit: number; decision: RateDecision }[] = [];
    for (let i = 0; i < 200; i++) {
      const k = Math.floor(rand() * keys.length);
      const decision = await redisLimiter.take(keys[k] as string, limits[k] as number);
      requests.push({ key: keys[k] as string, limit: limits[k] as number, decision });
      // Gaps well below the window, so that the memory limiter's idle-key sweep never runs on a key in use.
      if (rand() < 0.3) await new Promise((r) => setTimeout(r, Math.floor(rand() * 60)));
    }
    const clock = { now: 0 };
    const memory = new SlidingWindowLimiter({ windowMs, buckets, clock: () => clock.now });
    for (const [i, r] of requests.entries()) {
      clock.now = r.decision.atMs;
      assert.deepEqual(await memory.take(r.key, r.limit), r.decision, `request ${i}`);
    }
    assert.ok(
      requests.some((r) => !r.decision.allowed),
      'the pattern reaches the limits',
    );
    assert.ok(
      requests.some((r, i) => r.decision.allowed && requests.slice(0, i).some((p) => p.key === r.key && !p.decision.allowed)),
      'and capacity comes back',
    );
  });

  test('inputs are checked before anything is sent', async () => {
    const l = limiter(await node('node-1'));
    await assert.rejects(l.take('', 5), /non-empty/);
    await assert.rejects(l.take('k', 0), /whole number/);
    await assert.rejects(l.take('k', 1.5), /whole number/);
    assert.throws(() => limiter(clients[0] as RedisClient, { scope: 'Search Key' }), /scope/);
    assert.throws(() => limiter(clients[0] as RedisClient, { windowMs: 0 }), /positive/);
  });

  // Last: it stops the server.
  test('Redis away: the request is refused with 503 and Retry-After (fail closed), and the failure is reported', async () => {
    const client = await node('node-1');
    const failures: Error[] = [];
    const l = limiter(client, { onUnavailable: (err) => failures.push(err), unavailableRetrySeconds: 5 });
    const key = freshKey();
    assert.equal((await l.take(key, 5)).allowed, true);
    await redis.stop();
    const err = await l.take(key, 5).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof DomainError, String(err));
    assert.equal(err.status, 503);
    assert.equal(err.headers['retry-after'], '5');
    assert.equal(failures.length, 1);
  });
});
