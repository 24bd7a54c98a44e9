import { Redis, type RedisOptions } from 'ioredis';

/**
 * Redis plumbing every owner uses when REDIS_URL is set (issue 15): checking the address, and
 * opening a client. The client is ioredis (decision 0091): scripts are sent once and run by hash
 * after that (`defineCommand`), a lost connection is reopened with back-off, and pub/sub works on
 * a client of its own.
 *
 * Every key Periscope writes starts with `periscope:` (one Redis can then serve other users too),
 * and each owner adds its own part after it (`periscope:rate:`, `periscope:node:`, …).
 */

const SCHEMES = new Set(['redis:', 'rediss:']);

/** The prefix of every key Periscope writes. */
export const REDIS_PREFIX = 'periscope:';

/** Why `url` is not a usable Redis address, or null when it is: redis:// or rediss:// with a host. */
export function redisUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a URL such as redis://:password@cache.example:6379/0';
  }
  if (!SCHEMES.has(u.protocol)) return 'must start with redis:// or rediss://';
  if (!u.hostname) return 'must name a host (redis://HOST:6379)';
  const db = u.pathname.replace(/^\//, '');
  if (db && !/^\d{1,2}$/.test(db)) return 'may name only a database number after the host (redis://…:6379/0)';
  if (u.hash) return 'must not carry a fragment';
  return null;
}

export type RedisClient = Redis;

/**
 * A client for `url`, connecting at once. Commands fail fast while the server is away (no queue
 * that grows without bound; callers answer 503), and the client keeps reconnecting with back-off.
 * `name` shows in `CLIENT LIST`, which tells an operator which node holds which connection.
 */
export function openRedis(url: string, name: string, options: RedisOptions = {}): Redis {
  const problem = redisUrlProblem(url);
  if (problem) throw new Error(`REDIS_URL ${problem}`);
  return new Redis(url, {
    connectionName: name.replace(/[^\w.:-]/g, '_'),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
    ...options,
  });
}

/** Wait until `client` is connected, or throw with Redis's own words after `timeoutMs`. */
export async function redisReady(client: Redis, timeoutMs = 10_000): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    let last: Error | null = null;
    const onError = (err: Error) => (last = err);
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not answer within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
    };
    client.on('ready', onReady);
    client.on('error', onError);
  });
}
