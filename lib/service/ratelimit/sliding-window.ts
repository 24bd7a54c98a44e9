/**
 * Per-key request limit over a sliding window ("at most `limit` requests in any `windowMs`"),
 * counted in `buckets` sub-windows. A request is remembered until the whole of its bucket is more
 * than a window old (between one window and one window plus a bucket after it was made), so the
 * count never lets more than `limit` through in any window: the 41st request inside a minute is refused, and capacity comes back
 * bucket by bucket as old requests age out, not all at once at a fixed minute boundary.
 *
 * Memory is O(buckets) per active key, whatever the limit; idle keys are forgotten. One process's
 * memory: for several service nodes, redis-window.ts keeps the same window in Redis.
 */
import { rateDecision, type RateDecision, type RateLimiter } from './limiter.ts';

export type Clock = () => number;

type State = { start: number; counts: Int32Array; total: number; lastSeen: number };

export class SlidingWindowLimiter implements RateLimiter {
  readonly #windowMs: number;
  readonly #buckets: number;
  /** Ring size: the buckets of one window plus the one being filled. */
  readonly #ring: number;
  readonly #bucketMs: number;
  readonly #clock: Clock;
  readonly #keys = new Map<string, State>();
  #sweepAt = 0;

  constructor(opts: { windowMs?: number; buckets?: number; clock?: Clock } = {}) {
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#buckets = opts.buckets ?? 60;
    this.#ring = this.#buckets + 1;
    this.#bucketMs = this.#windowMs / this.#buckets;
    this.#clock = opts.clock ?? Date.now;
    if (!(this.#windowMs > 0) || !Number.isInteger(this.#buckets) || this.#buckets < 1)
      throw new RangeError('window and buckets must be positive');
  }

  /** Count a request for `key` against `limit` if it fits; say how things stand either way. */
  async take(key: string, limit: number): Promise<RateDecision> {
    const now = this.#clock();
    this.#sweep(now);
    const s = this.#advance(key, now);
    const allowed = s.total < limit;
    if (allowed) {
      const i = this.#slot(now);
      s.counts[i] = (s.counts[i] as number) + 1;
      s.total++;
    }
    s.lastSeen = now;
    return this.#decision(s, now, limit, allowed);
  }

  /** How things stand for `key` without counting a request. */
  peek(key: string, limit: number): RateDecision {
    const now = this.#clock();
    const s = this.#keys.get(key) ? this.#advance(key, now) : null;
    if (!s) return rateDecision({ allowed: true, limit, total: 0, retryAfterMs: 0, resetMs: 0, windowMs: this.#windowMs, atMs: now });
    return this.#decision(s, now, limit, s.total < limit);
  }

  #bucketIndex(t: number): number {
    return Math.floor(t / this.#bucketMs);
  }

  #slot(t: number): number {
    return this.#bucketIndex(t) % this.#ring;
  }

  /** Drop the buckets that have left the window. */
  #advance(key: string, now: number): State {
    const current = this.#bucketIndex(now);
    let s = this.#keys.get(key);
    if (!s) {
      s = { start: current, counts: new Int32Array(this.#ring), total: 0, lastSeen: now };
      this.#keys.set(key, s);
      return s;
    }
    const oldestAllowed = current - this.#buckets;
    if (oldestAllowed > s.start) {
      const drop = Math.min(oldestAllowed - s.start, this.#ring);
      for (let b = s.start; b < s.start + drop; b++) {
        const i = b % this.#ring;
        s.total -= s.counts[i] as number;
        s.counts[i] = 0;
      }
      s.start = oldestAllowed;
    }
    return s;
  }

  #decision(s: State, now: number, limit: number, allowed: boolean): RateDecision {
    const current = this.#bucketIndex(now);
    let retryAfterMs = 0;
    let resetMs = 0;
    let freed = 0;
    const excess = s.total - limit + 1;
    for (let b = Math.max(s.start, current - this.#buckets); b <= current; b++) {
      const n = s.counts[b % this.#ring] as number;
      if (!n) continue;
      // Bucket b is forgotten once its end is a whole window old.
      const leavesAt = (b + 1 + this.#buckets) * this.#bucketMs;
      resetMs = leavesAt - now;
      freed += n;
      if (excess > 0 && !retryAfterMs && freed >= excess) retryAfterMs = leavesAt - now;
    }
    return rateDecision({ allowed, limit, total: s.total, retryAfterMs, resetMs, windowMs: this.#windowMs, atMs: now });
  }

  async close(): Promise<void> {}

  #sweep(now: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + this.#windowMs;
    for (const [key, s] of this.#keys) if (now - s.lastSeen > this.#windowMs) this.#keys.delete(key);
  }
}
