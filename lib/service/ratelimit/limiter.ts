/**
 * What the service's per-key request limits share, whichever store counts: the decision one
 * request gets, the interface every limiter offers, and how a decision becomes response headers.
 * Two limiters implement it with the same sliding window of buckets (decision 0011): in this
 * process's memory (sliding-window.ts, one node) and in Redis (redis-window.ts, many nodes:
 * decision 0092).
 */
export type RateDecision = {
  allowed: boolean;
  limit: number;
  /** Requests still allowed right now (after this one, if it was allowed). */
  remaining: number;
  /** Seconds until one more request would be allowed (0 if one is allowed now). */
  retryAfterSeconds: number;
  /** Seconds until every request counted now has left the window. */
  resetSeconds: number;
  windowSeconds: number;
  /** The clock reading the decision was made at (ms since the epoch): this process's, or the Redis server's. */
  atMs: number;
};

export interface RateLimiter {
  /**
   * Count a request for `key` against `limit` (requests per window) if it fits, atomically with
   * every other node that shares the store; say how things stand either way. Rejects with
   * ServiceUnavailable when the store cannot be asked (the request must then be refused).
   */
  take(key: string, limit: number): Promise<RateDecision>;
  /** Let go of what the limiter holds (a store's connection). */
  close(): Promise<void>;
}

/**
 * A decision from a window's count: `total` requests are counted now (this one included if
 * allowed); `retryAfterMs` is how long until the oldest counted requests have left the window so
 * that one more fits (meaningful when `total >= limit`); `resetMs` until every counted one has.
 */
export function rateDecision(d: {
  allowed: boolean;
  limit: number;
  total: number;
  retryAfterMs: number;
  resetMs: number;
  windowMs: number;
  atMs: number;
}): RateDecision {
  const full = d.total - d.limit + 1 > 0;
  return {
    allowed: d.allowed,
    limit: d.limit,
    remaining: Math.max(0, d.limit - d.total),
    retryAfterSeconds: full ? Math.max(1, Math.ceil(d.retryAfterMs / 1000)) : 0,
    resetSeconds: Math.max(0, Math.ceil(d.resetMs / 1000)),
    windowSeconds: d.windowMs / 1000,
    atMs: d.atMs,
  };
}

/** The limit state as response headers: the IETF httpapi RateLimit draft (RateLimit-Policy and
 * RateLimit) and the common X-RateLimit-* set. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'ratelimit-policy': `"per-key";q=${d.limit};w=${d.windowSeconds}`,
    ratelimit: `"per-key";r=${d.remaining};t=${d.remaining > 0 ? d.resetSeconds : d.retryAfterSeconds}`,
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(d.remaining > 0 ? d.resetSeconds : d.retryAfterSeconds),
  };
}
