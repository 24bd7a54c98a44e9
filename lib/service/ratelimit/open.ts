import type { Logger } from 'pino';
import { openRedis } from '#shared/redis.ts';
import type { ServiceConfig } from '#service/config.ts';
import type { RateLimiter } from './limiter.ts';
import { RedisSlidingWindowLimiter } from './redis-window.ts';
import { SlidingWindowLimiter } from './sliding-window.ts';

/** A check that waits longer than this for Redis is refused (503) rather than holding the request. */
const REDIS_TIMEOUT_MS = 1_000;
/** How often one outage is logged again while it lasts. */
const LOG_EVERY_MS = 10_000;

/** What a limiter counts: each has its own window and, in Redis, its own keys. */
export type LimitScope = 'search' | 'actions';

/**
 * A per-key limiter of the search API or of the page actions: in memory for one node, in Redis when
 * REDIS_URL makes this a node of several (decision 0092), on a client of its own named after the node.
 */
export function openRateLimiter(config: ServiceConfig, log: Logger, scope: LimitScope): RateLimiter {
  const windowMs = scope === 'search' ? config.search.rateWindowMs : config.actions.rateWindowMs;
  if (!config.cluster) return new SlidingWindowLimiter({ windowMs });
  const client = openRedis(config.cluster.redisUrl, `${config.cluster.nodeId}:ratelimit:${scope}`, { commandTimeout: REDIS_TIMEOUT_MS });
  let loggedAt = -Infinity;
  const report = (err: Error) => {
    const now = Date.now();
    if (now - loggedAt < LOG_EVERY_MS) return;
    loggedAt = now;
    log.error(
      { err: err.message, scope },
      `rate limits cannot be checked in Redis: ${scope === 'search' ? 'searches' : 'page actions'} are refused with 503 until it answers`,
    );
  };
  client.on('error', report);
  client.on('ready', () => {
    if (loggedAt === -Infinity) return;
    loggedAt = -Infinity;
    log.info({ scope }, 'rate limits are checked in Redis again');
  });
  return new RedisSlidingWindowLimiter(client, { scope, windowMs, onUnavailable: report, ownsClient: true });
}
