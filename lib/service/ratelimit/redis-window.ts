import { ServiceUnavailable } from '#shared/errors.ts';
import { REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';
import { rateDecision, type RateDecision, type RateLimiter } from './limiter.ts';

/**
 * The sliding window of sliding-window.ts (decision 0011), kept in Redis so that every service
 * node counts against the same window (decision 0092). Each request is decided by one Lua script,
 * which Redis runs atomically: it reads the key's buckets, drops those that left the window,
 * counts, adds the request if it fits, works out remaining / retry-after / reset, and sets an
 * expiry so that an idle key's hash vanishes. Time is the Redis server's (`TIME`), so nodes with
 * skewed clocks agree. Same arithmetic, same answers as the memory limiter at the same instant.
 *
 * One hash per key, `periscope:rate:<scope>:<key>`: field = bucket number, value = requests in it
 * (at most buckets + 1 fields).
 */

/**
 * KEYS[1]: the key's hash. ARGV: limit, window (ms), buckets. Returns { allowed (0/1), requests
 * counted (this one included if allowed), ms until one more fits, ms until all have left, the
 * server's time in ms }; the fractional figures as strings (Redis truncates Lua numbers to integers).
 */
const TAKE_SCRIPT = `
local limit = tonumber(ARGV[1])
local buckets = tonumber(ARGV[3])
local bucketMs = tonumber(ARGV[2]) / buckets
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local current = math.floor(now / bucketMs)
local oldest = current - buckets
local flat = redis.call('HGETALL', KEYS[1])
local kept, counts, gone, total = {}, {}, {}, 0
for i = 1, #flat, 2 do
  local b, n = tonumber(flat[i]), tonumber(flat[i + 1])
  if b < oldest then
    gone[#gone + 1] = flat[i]
  else
    kept[#kept + 1] = b
    counts[b] = n
    total = total + n
  end
end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
local allowed = 0
if total < limit then
  allowed = 1
  total = total + 1
  if counts[current] == nil then
    kept[#kept + 1] = current
    counts[current] = 0
  end
  counts[current] = counts[current] + 1
  redis.call('HINCRBY', KEYS[1], string.format('%d', current), 1)
  redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil((current + 1 + buckets) * bucketMs - now)))
end
table.sort(kept)
local excess = total - limit + 1
local retryMs, resetMs, freed = 0, 0, 0
for _, b in ipairs(kept) do
  local n = counts[b]
  if b <= current and n > 0 then
    local leavesAt = (b + 1 + buckets) * bucketMs
    resetMs = leavesAt - now
    freed = freed + n
    if excess > 0 and retryMs == 0 and freed >= excess then retryMs = leavesAt - now end
  end
end
return { allowed, total, string.format('%.17g', retryMs), string.format('%.17g', resetMs), string.format('%d', now) }
`;

type ScriptedClient = RedisClient & {
  periscopeRateTake(key: string, limit: number, windowMs: number, buckets: number): Promise<[number, number, string, string, string]>;
};

export type RedisWindowOptions = {
  /** Which limit this is (`search`); part of every key, so limits of different kinds never mix. */
  scope: string;
  windowMs?: number;
  buckets?: number;
  /** Seconds a client is told to wait (Retry-After) while Redis cannot be asked. */
  unavailableRetrySeconds?: number;
  /** Told of every failed check (to log it); the request is refused either way. */
  onUnavailable?: (err: Error) => void;
  /** Quit the client on close (when the limiter opened it for itself). */
  ownsClient?: boolean;
};

const MAX_LIMIT = 2 ** 31 - 1;

export class RedisSlidingWindowLimiter implements RateLimiter {
  readonly #client: ScriptedClient;
  readonly #prefix: string;
  readonly #windowMs: number;
  readonly #buckets: number;
  readonly #retrySeconds: number;
  readonly #onUnavailable: (err: Error) => void;
  readonly #ownsClient: boolean;

  constructor(client: RedisClient, opts: RedisWindowOptions) {
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#buckets = opts.buckets ?? 60;
    if (!Number.isInteger(this.#windowMs) || this.#windowMs < 1 || !Number.isInteger(this.#buckets) || this.#buckets < 1)
      throw new RangeError('window (whole ms) and buckets must be positive integers');
    if (!/^[a-z][a-z0-9-]*$/.test(opts.scope))
      throw new RangeError(`scope must be lower-case letters, digits and dashes, got ${opts.scope}`);
    this.#prefix = `${REDIS_PREFIX}rate:${opts.scope}:`;
    this.#retrySeconds = opts.unavailableRetrySeconds ?? 5;
    this.#onUnavailable = opts.onUnavailable ?? (() => {});
    this.#ownsClient = opts.ownsClient ?? false;
    client.defineCommand('periscopeRateTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.#client = client as ScriptedClient;
  }

  async take(key: string, limit: number): Promise<RateDecision> {
    if (typeof key !== 'string' || key === '') throw new TypeError('a rate-limit key must be a non-empty string');
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      throw new RangeError(`a limit must be a whole number from 1 to ${MAX_LIMIT}, got ${limit}`);
    let reply: [number, number, string, string, string];
    try {
      reply = await this.#client.periscopeRateTake(this.#prefix + key, limit, this.#windowMs, this.#buckets);
    } catch (err) {
      this.#onUnavailable(err as Error);
      // Fail closed: a paid limit that cannot be counted is not granted (decision 0092).
      throw new ServiceUnavailable(
        'the rate limit cannot be checked right now (its store does not answer); retry shortly',
        this.#retrySeconds,
      );
    }
    const [allowed, total, retryAfterMs, resetMs, atMs] = reply;
    return rateDecision({
      allowed: allowed === 1,
      limit,
      total,
      retryAfterMs: Number(retryAfterMs),
      resetMs: Number(resetMs),
      windowMs: this.#windowMs,
      atMs: Number(atMs),
    });
  }

  async close(): Promise<void> {
    if (!this.#ownsClient) return;
    await this.#client.quit().catch(() => this.#client.disconnect());
  }
}
