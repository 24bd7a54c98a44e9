import { createHash } from 'node:crypto';
import { REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';

/**
 * Who holds a profile to save into it: one persisting browser per profile at a time, on every node
 * together (decision 0106). `holder` is an opaque id of the use that claimed it.
 */
export interface ProfileLocks {
  /** True when the profile was free and is now held by `holder`. */
  claim(keyId: string, name: string, holder: string): Promise<boolean>;
  /** Let go, if `holder` still holds it. */
  release(keyId: string, name: string, holder: string): Promise<void>;
  /** Which of `names` are held now. */
  held(keyId: string, names: readonly string[]): Promise<Set<string>>;
}

const slot = (keyId: string, name: string) => `${keyId}\0${name}`;

/** One node alone: held in memory. */
export class MemoryProfileLocks implements ProfileLocks {
  readonly #holders = new Map<string, string>();

  async claim(keyId: string, name: string, holder: string): Promise<boolean> {
    const k = slot(keyId, name);
    if (this.#holders.has(k)) return false;
    this.#holders.set(k, holder);
    return true;
  }

  async release(keyId: string, name: string, holder: string): Promise<void> {
    const k = slot(keyId, name);
    if (this.#holders.get(k) === holder) this.#holders.delete(k);
  }

  async held(keyId: string, names: readonly string[]): Promise<Set<string>> {
    return new Set(names.filter((n) => this.#holders.has(slot(keyId, n))));
  }
}

/**
 * Take a lock held as `<node> <holder>`, unless a node whose heartbeat is alive holds it: a lock
 * left by a lost node (killed, its machine gone) is taken over once its heartbeat has expired.
 */
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if v then
  local node = string.match(v, '^(%S+) ')
  if node and redis.call('EXISTS', ARGV[3] .. 'node:' .. node) == 1 then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

type Scripts = {
  periscopeProfileClaim(k: string, node: string, holder: string, prefix: string): Promise<number>;
  periscopeProfileRelease(k: string, value: string): Promise<number>;
};

/** Several nodes: held in Redis, next to the cluster registry whose heartbeats say which node is alive. */
export class RedisProfileLocks implements ProfileLocks {
  readonly #redis: RedisClient & Scripts;
  readonly #nodeId: string;

  constructor(redis: RedisClient, nodeId: string) {
    redis.defineCommand('periscopeProfileClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('periscopeProfileRelease', { numberOfKeys: 1, lua: RELEASE });
    this.#redis = redis as RedisClient & Scripts;
    this.#nodeId = nodeId;
  }

  #key(keyId: string, name: string): string {
    return `${REDIS_PREFIX}profile-lock:${createHash('sha256').update(keyId).digest('hex').slice(0, 32)}:${name}`;
  }

  async claim(keyId: string, name: string, holder: string): Promise<boolean> {
    return (await this.#redis.periscopeProfileClaim(this.#key(keyId, name), this.#nodeId, holder, REDIS_PREFIX)) === 1;
  }

  async release(keyId: string, name: string, holder: string): Promise<void> {
    await this.#redis.periscopeProfileRelease(this.#key(keyId, name), `${this.#nodeId} ${holder}`);
  }

  async held(keyId: string, names: readonly string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const values = await this.#redis.mget(names.map((n) => this.#key(keyId, n)));
    return new Set(names.filter((_, i) => values[i] !== null));
  }
}
