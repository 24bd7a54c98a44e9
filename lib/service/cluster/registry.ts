import type { Logger } from 'pino';
import { REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';

/**
 * The cluster's shared picture in Redis (issue 15, decision 0091): which service nodes are alive and
 * how full, which node runs each live browser, and how many live browsers each API key holds across
 * all nodes. Every change that must not interleave with another node's is one Lua script, which
 * Redis runs atomically.
 *
 * Keys (after `periscope:`):
 * - `node:<id>`: a node's heartbeat, JSON {url, capacity, load, startedAt}, expiring `ttlMs` after
 *   its last beat; a node whose heartbeat expired is lost.
 * - `nodes`: the set of node ids that registered and were not yet reaped (a node reaped while it
 *   lived, whose beats lapsed for a while, puts itself back at its next beat).
 * - `node:<id>:browsers`: the set of browser ids a node runs (reserved or live).
 * - `browser:<id>`: hash {node, key, startedAt} of a reserved or live browser.
 * - `key:<keyId>:browsers`: the set of an API key's reserved or live browsers on every node.
 * - `reaped:<id>`: a node another node reaped, for an hour.
 */

export type NodeInfo = {
  id: string;
  /** Where other nodes reach it (never shown to clients). */
  url: string;
  capacity: number;
  /** Browsers it runs or is starting. */
  load: number;
  startedAt: number;
};

export type RegistryOptions = {
  nodeId: string;
  nodeUrl: string;
  capacity: number;
  /** How often a node beats, and how long a beat keeps it alive. */
  heartbeatMs?: number;
  ttlMs?: number;
  /** How often each node looks for lost nodes. */
  reapMs?: number;
  /** This node's current load, read at every beat. */
  load: () => number;
  /** A lost node's browsers, once, on the one node that reaped it. */
  onNodeLost: (nodeId: string, browserIds: string[]) => Promise<void>;
  /** This node has just joined again after the cluster lost it. `reaped`: its beats lapsed for
   * longer than `ttlMs` (a stall, a pause, a lost connection to Redis) and another node reaped it:
   * the browsers the reap forgot (forgotten()) are lost to the cluster, which has told their
   * clients and their history so. `forgotten`: Redis itself lost what it held (restarted empty):
   * nobody gave its browsers up, and they can be recorded again (restore()). */
  onRejoined?: (why: 'reaped' | 'forgotten') => Promise<void>;
  log: Logger;
};

/** The registry's keys in Redis (module comment above); exported so that tests read what a node recorded. */
export const registryKeys = {
  nodes: `${REDIS_PREFIX}nodes`,
  node: (id: string) => `${REDIS_PREFIX}node:${id}`,
  nodeBrowsers: (id: string) => `${REDIS_PREFIX}node:${id}:browsers`,
  browser: (id: string) => `${REDIS_PREFIX}browser:${id}`,
  keyBrowsers: (keyId: string) => `${REDIS_PREFIX}key:${keyId}:browsers`,
  /** Set for an hour by the node that reaps another, so that the reaped one, should it beat again,
   * knows it was reaped rather than forgotten by a Redis that lost its data. */
  reaped: (id: string) => `${REDIS_PREFIX}reaped:${id}`,
};

/** Reserve a browser for a key if the key holds fewer than its limit on all nodes together. */
const ADMIT = `
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'node', ARGV[3], 'key', ARGV[4], 'startedAt', ARGV[5])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;

/** A node's beat: its heartbeat set; 1 while it is among the nodes, 0 once another node reaped it
 * (REAP's mark), -1 when Redis knows nothing of it (it lost its data). */
const BEAT = `
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
if redis.call('SISMEMBER', KEYS[1], ARGV[3]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
return -1`;

/** Record again a browser this node runs, which Redis lost: its owner, its node's list, its key's count. */
const RESTORE = `
redis.call('HSET', KEYS[1], 'node', ARGV[2], 'key', ARGV[3], 'startedAt', ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;

/** Forget a browser: its key's count, its owner, its node's list. */
const RELEASE = `
local key = redis.call('HGET', KEYS[1], 'key')
local node = redis.call('HGET', KEYS[1], 'node')
if key then redis.call('SREM', ARGV[2] .. 'key:' .. key .. ':browsers', ARGV[1]) end
if node then redis.call('SREM', ARGV[2] .. 'node:' .. node .. ':browsers', ARGV[1]) end
redis.call('DEL', KEYS[1])
return node and 1 or 0`;

/**
 * Reap a node: every browser it ran is forgotten, and the ids are returned to exactly one caller.
 * ARGV[3] = '1' reaps even a node that still beats (a restarted node taking over its own id).
 */
const REAP = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 and ARGV[3] ~= '1' then return false end
if ARGV[3] ~= '1' and redis.call('EXISTS', KEYS[2]) == 1 then return false end
local ids = redis.call('SMEMBERS', KEYS[3])
for _, id in ipairs(ids) do
  local key = redis.call('HGET', ARGV[2] .. 'browser:' .. id, 'key')
  if key then redis.call('SREM', ARGV[2] .. 'key:' .. key .. ':browsers', id) end
  redis.call('DEL', ARGV[2] .. 'browser:' .. id)
end
redis.call('DEL', KEYS[3])
redis.call('SREM', KEYS[1], ARGV[1])
if ARGV[3] == '1' then redis.call('DEL', ARGV[2] .. 'reaped:' .. ARGV[1]) else redis.call('SET', ARGV[2] .. 'reaped:' .. ARGV[1], '1', 'PX', 3600000) end
return ids`;

type Scripts = {
  periscopeAdmit(k1: string, k2: string, k3: string, id: string, max: number, node: string, key: string, at: number): Promise<number>;
  periscopeRelease(k1: string, id: string, prefix: string): Promise<number>;
  periscopeBeat(k1: string, k2: string, k3: string, info: string, ttlMs: number, node: string): Promise<number>;
  periscopeRestore(k1: string, k2: string, k3: string, id: string, node: string, key: string, at: number): Promise<number>;
  periscopeReap(k1: string, k2: string, k3: string, node: string, prefix: string, force: '0' | '1'): Promise<string[] | null>;
};

export class ClusterRegistry {
  readonly #redis: RedisClient & Scripts;
  readonly #opts: Required<Omit<RegistryOptions, 'log' | 'load' | 'onNodeLost' | 'onRejoined'>> &
    Pick<RegistryOptions, 'log' | 'load' | 'onNodeLost' | 'onRejoined'>;
  readonly #startedAt = Date.now();
  #beating: NodeJS.Timeout | null = null;
  #reaping: NodeJS.Timeout | null = null;
  #closed = false;
  #draining = false;
  /** Whether start() has put this node among the nodes, so that a beat that finds it gone rejoins. */
  #joined = false;
  #rejoining: Promise<void> | null = null;

  constructor(redis: RedisClient, opts: RegistryOptions) {
    this.#opts = { heartbeatMs: 1000, ttlMs: 5000, reapMs: 1000, ...opts };
    redis.defineCommand('periscopeAdmit', { numberOfKeys: 3, lua: ADMIT });
    redis.defineCommand('periscopeRelease', { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand('periscopeBeat', { numberOfKeys: 3, lua: BEAT });
    redis.defineCommand('periscopeRestore', { numberOfKeys: 3, lua: RESTORE });
    redis.defineCommand('periscopeReap', { numberOfKeys: 3, lua: REAP });
    this.#redis = redis as RedisClient & Scripts;
  }

  get nodeId(): string {
    return this.#opts.nodeId;
  }

  /**
   * Join the cluster: forget whatever an earlier process with this node id left (it is gone: this
   * one replaces it), then beat and watch for lost nodes. Returns the browsers the predecessor left.
   */
  async start(): Promise<string[]> {
    const { nodeId } = this.#opts;
    const left =
      (await this.#redis.periscopeReap(
        registryKeys.nodes,
        registryKeys.node(nodeId),
        registryKeys.nodeBrowsers(nodeId),
        nodeId,
        REDIS_PREFIX,
        '1',
      )) ?? [];
    await this.#redis.sadd(registryKeys.nodes, nodeId);
    this.#joined = true;
    await this.beat();
    this.#beating = setInterval(
      () => void this.beat().catch((err: Error) => this.#opts.log.warn({ err }, 'heartbeat failed')),
      this.#opts.heartbeatMs,
    );
    this.#reaping = setInterval(
      () => void this.reap().catch((err: Error) => this.#opts.log.warn({ err }, 'looking for lost nodes failed')),
      this.#opts.reapMs,
    );
    this.#beating.unref();
    this.#reaping.unref();
    return left;
  }

  /** From now on this node says it has no room (it is draining before a stop): new browsers go to other nodes. */
  async drain(): Promise<void> {
    this.#draining = true;
    await this.beat();
  }

  /** Say this node is alive, and how full it is; a node that finds itself reaped joins again. */
  async beat(): Promise<void> {
    if (this.#closed) return;
    const { nodeId } = this.#opts;
    const info: Omit<NodeInfo, 'id'> = {
      url: this.#opts.nodeUrl,
      capacity: this.#draining ? 0 : this.#opts.capacity,
      load: this.#opts.load(),
      startedAt: this.#startedAt,
    };
    // With its heartbeat set, no node reaps it any more (REAP sees it beat). One that did so before
    // took it out of the nodes, and Redis restarted empty knows none: either way it joins again.
    const member = await this.#redis.periscopeBeat(
      registryKeys.nodes,
      registryKeys.node(nodeId),
      registryKeys.reaped(nodeId),
      JSON.stringify(info),
      this.#opts.ttlMs,
      nodeId,
    );
    if (member !== 1 && this.#joined && !this.#closed) await this.#rejoin(member === 0 ? 'reaped' : 'forgotten');
  }

  /** Back among the nodes, once however many beats find it gone meanwhile; then onRejoined. */
  #rejoin(why: 'reaped' | 'forgotten'): Promise<void> {
    this.#rejoining ??= (async () => {
      this.#opts.log.warn(
        { node: this.#opts.nodeId, why },
        why === 'reaped'
          ? 'this node was reaped while it lived (its heartbeat lapsed): joining again'
          : 'Redis no longer knows this node (it lost its data): joining again',
      );
      await this.#redis.sadd(registryKeys.nodes, this.#opts.nodeId);
      await this.#opts.onRejoined?.(why);
    })().finally(() => {
      this.#rejoining = null;
    });
    return this.#rejoining;
  }

  /** Records again browsers this node runs that Redis lost (onRejoined 'forgotten'): who runs each,
   * and each key's count, which new browsers are then admitted against. */
  async restore(browsers: readonly { id: string; keyId: string; startedAt: number }[]): Promise<void> {
    const { nodeId } = this.#opts;
    for (const b of browsers)
      await this.#redis.periscopeRestore(
        registryKeys.browser(b.id),
        registryKeys.nodeBrowsers(nodeId),
        registryKeys.keyBrowsers(b.keyId),
        b.id,
        nodeId,
        b.keyId,
        b.startedAt,
      );
  }

  /** Of `ids`, browsers this node runs, those the cluster no longer counts as its own: a reap forgot them. */
  async forgotten(ids: readonly string[]): Promise<string[]> {
    if (!ids.length) return [];
    const kept = new Set(await this.#redis.smembers(registryKeys.nodeBrowsers(this.#opts.nodeId)));
    return ids.filter((id) => !kept.has(id));
  }

  /** The nodes alive now (their heartbeat has not expired). */
  async nodes(): Promise<NodeInfo[]> {
    const ids = await this.#redis.smembers(registryKeys.nodes);
    if (ids.length === 0) return [];
    const beats = await this.#redis.mget(ids.map(registryKeys.node));
    const alive: NodeInfo[] = [];
    ids.forEach((id, i) => {
      const info = parseBeat(beats[i]);
      if (info) alive.push({ id, ...info });
    });
    return alive;
  }

  /** The node that runs browser `id` and where to reach it; null when no node runs it. */
  async ownerOf(id: string): Promise<NodeInfo | null> {
    const node = await this.#redis.hget(registryKeys.browser(id), 'node');
    if (!node) return null;
    const info = parseBeat(await this.#redis.get(registryKeys.node(node)));
    return info ? { id: node, ...info } : null;
  }

  /** Reserve browser `id` for `keyId` on this node, if the key holds fewer than `max` on all nodes. */
  async admit(id: string, keyId: string, max: number): Promise<boolean> {
    const ok = await this.#redis.periscopeAdmit(
      registryKeys.keyBrowsers(keyId),
      registryKeys.browser(id),
      registryKeys.nodeBrowsers(this.#opts.nodeId),
      id,
      max,
      this.#opts.nodeId,
      keyId,
      Date.now(),
    );
    return ok === 1;
  }

  /** The browser ended (or its start failed): it no longer counts anywhere. */
  async release(id: string): Promise<void> {
    await this.#redis.periscopeRelease(registryKeys.browser(id), id, REDIS_PREFIX);
  }

  /** Claim a node-to-node request's nonce: true the first time, false for a replay (kept `ttlMs`). */
  async claimNonce(nonce: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.set(`${REDIS_PREFIX}service-nonce:${nonce}`, this.#opts.nodeId, 'PX', ttlMs, 'NX')) === 'OK';
  }

  /** How many browsers `keyId` holds on all nodes. */
  async countFor(keyId: string): Promise<number> {
    return this.#redis.scard(registryKeys.keyBrowsers(keyId));
  }

  /** Find nodes whose heartbeat expired and end their browsers; each lost node is reaped by one node. */
  async reap(): Promise<void> {
    const ids = await this.#redis.smembers(registryKeys.nodes);
    const others = ids.filter((id) => id !== this.#opts.nodeId);
    if (others.length === 0) return;
    const beats = await this.#redis.mget(others.map(registryKeys.node));
    for (const [i, id] of others.entries()) {
      if (beats[i] !== null) continue;
      const browsers = await this.#redis.periscopeReap(
        registryKeys.nodes,
        registryKeys.node(id),
        registryKeys.nodeBrowsers(id),
        id,
        REDIS_PREFIX,
        '0',
      );
      if (browsers === null) continue; // another node reaped it first, or it came back
      this.#opts.log.warn({ node: id, browsers: browsers.length }, 'service node lost: its browsers are ended');
      await this.#opts.onNodeLost(id, browsers);
    }
  }

  /** Leave the cluster: stop beating and remove this node (its browsers were ended by then). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#beating) clearInterval(this.#beating);
    if (this.#reaping) clearInterval(this.#reaping);
    const { nodeId } = this.#opts;
    await this.#redis
      .periscopeReap(registryKeys.nodes, registryKeys.node(nodeId), registryKeys.nodeBrowsers(nodeId), nodeId, REDIS_PREFIX, '1')
      .then(() => this.#redis.del(registryKeys.node(nodeId)))
      .catch((err: Error) => this.#opts.log.warn({ err }, 'could not leave the cluster cleanly'));
  }
}

function parseBeat(text: string | null | undefined): Omit<NodeInfo, 'id'> | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Omit<NodeInfo, 'id'>;
    return typeof v.url === 'string' && Number.isFinite(v.capacity) && Number.isFinite(v.load) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Where a new browser should start: the least loaded node with room (by share of its capacity,
 * then by count), this node first among equals (no hop). Empty when every node is full.
 */
export function placement(nodes: readonly NodeInfo[], self: string): NodeInfo[] {
  return nodes
    .filter((n) => n.load < n.capacity)
    .sort((a, b) => a.load / a.capacity - b.load / b.capacity || a.load - b.load || (a.id === self ? -1 : b.id === self ? 1 : 0));
}
