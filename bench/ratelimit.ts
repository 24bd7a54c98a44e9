import { availableParallelism, loadavg } from 'node:os';
import { openRedis, redisReady, REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';
import type { RateLimiter } from '#service/ratelimit/limiter.ts';
import { RedisSlidingWindowLimiter } from '#service/ratelimit/redis-window.ts';
import { SlidingWindowLimiter } from '#service/ratelimit/sliding-window.ts';
import { startRedis } from '../tests/helpers/redis.ts';
import { percentile, printTable, type Row } from './_stats.ts';

/**
 * `npm run bench -- ratelimit`: the search limit's check (decision 0092) in Redis against the same
 * window in memory, at 1 and 16 concurrent callers, on a private redis-server on loopback that the
 * run starts and stops. Beside them, a bare PING on the same client: the round trip any Redis
 * check pays, whatever it does. Callers are closed-loop (each sends its next check when the last
 * is answered) and share one client, as the requests of one service node do. Every key's hash is
 * filled first with a request in each of the window's 60 buckets, so the script reads and counts
 * the most a key can hold; the limit is high enough that every check is allowed (the path that
 * also writes).
 */
const KEYS = 200;
const LIMIT = 1_000_000;
const WINDOW_MS = 60_000;
const BUCKETS = 60;
const PER_RUN = Number(process.env.BENCH_RATELIMIT_CHECKS ?? 20_000);

type Check = (key: string) => Promise<unknown>;

async function measure(check: Check, callers: number, total: number): Promise<{ samples: number[]; seconds: number }> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < total) {
        const key = `bench_${next++ % KEYS}`;
        const t = performance.now();
        await check(key);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { samples, seconds: (performance.now() - started) / 1000 };
}

/** A request in every bucket of the window, for every key: the most a key's hash holds. */
async function fill(client: RedisClient): Promise<void> {
  const [s, us] = await client.time();
  const current = Math.floor((Number(s) * 1000 + Math.floor(Number(us) / 1000)) / (WINDOW_MS / BUCKETS));
  const pipeline = client.pipeline();
  for (let k = 0; k < KEYS; k++) {
    const key = `${REDIS_PREFIX}rate:search:bench_${k}`;
    for (let b = current - BUCKETS + 1; b < current; b++) pipeline.hset(key, String(b), '1');
    pipeline.pexpire(key, WINDOW_MS * 2);
  }
  await pipeline.exec();
}

const redis = await startRedis();
const client = openRedis(redis.url, 'bench-ratelimit');
try {
  await redisReady(client);
  await fill(client);
  const memory: RateLimiter = new SlidingWindowLimiter({ windowMs: WINDOW_MS, buckets: BUCKETS });
  const inRedis: RateLimiter = new RedisSlidingWindowLimiter(client, { scope: 'search', windowMs: WINDOW_MS, buckets: BUCKETS });
  let fresh = 0;
  const paths: [string, Check][] = [
    ['in memory (SlidingWindowLimiter)', (key) => memory.take(key, LIMIT)],
    ['Redis PING (round trip only)', () => client.ping()],
    ['Redis (one Lua script), full keys', (key) => inRedis.take(key, LIMIT)],
    ['Redis (one Lua script), new keys', () => inRedis.take(`new_${++fresh}`, LIMIT)],
  ];
  // Warm-up: scripts loaded, connections and JIT settled.
  for (const [, check] of paths) await measure(check, 4, 2_000);
  const rows: Row[] = [];
  for (const callers of [1, 16]) {
    for (const [path, check] of paths) {
      const { samples, seconds } = await measure(check, callers, PER_RUN);
      rows.push({
        path,
        callers,
        checks: samples.length,
        'p50 µs': Math.round(percentile(samples, 0.5) * 1000),
        'p99 µs': Math.round(percentile(samples, 0.99) * 1000),
        'checks/s': Math.round(samples.length / seconds),
      });
    }
  }
  const mem = await client.info('memory');
  printTable(
    `rate-limit check: ${KEYS} full keys (a request in each of ${BUCKETS} buckets) or new ones, every check allowed; redis-server ${(await client.info('server')).match(/redis_version:(\S+)/)?.[1]}, ${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(2)}`,
    rows,
  );
  console.log(
    `\nRedis memory for ${KEYS} full keys: ${mem.match(/used_memory_human:(\S+)/)?.[1]} (dataset ${(await client.memory('USAGE', `${REDIS_PREFIX}rate:search:bench_0`)) ?? '?'} bytes for one key)`,
  );
} finally {
  client.disconnect();
  await redis.stop();
}
