import { z } from 'zod';
import { REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';
import { parseHeldRow, type HeldRow } from '../live/held-row.ts';

/**
 * Which portal node holds which team browser, in Redis (decision 0095). Keys, all under
 * `periscope:portal:`:
 * - `node:<nodeId>`: the node's address and boot, expiring `ttlMs` after its last heartbeat;
 * - `nodes`: every node that holds or held browsers (a node whose `node:` key expired is dead);
 * - `team:<teamId>`: a hash, instance id → the browser's row (lib/portal/live/held-row.ts);
 * - `held:<nodeId>`: a hash, instance id → team id, what that node holds;
 * - `where`: a hash, instance id → team id, to find a browser by its id alone.
 * Rows of a node whose heartbeat expired are never listed; the first node to notice takes them
 * away in one script (so exactly one records them ended), and a restarted node takes its
 * predecessor's at once.
 */
const P = `${REDIS_PREFIX}portal:`;
export const PORTAL_KEYS = {
  nodes: `${P}nodes`,
  where: `${P}where`,
  node: (id: string) => `${P}node:${id}`,
  held: (id: string) => `${P}held:${id}`,
  team: (id: string) => `${P}team:${id}`,
  nonce: (n: string) => `${P}nonce:${n}`,
  /** Left by the node that took a node's rows away, for that node to find if it was only late. */
  reaped: (id: string) => `${P}reaped:${id}`,
  teamPrefix: `${P}team:`,
};

const countsSchema = z.record(z.string().max(200), z.number().int().nonnegative());
/** What a node holds for the portal's limits (browsers it only watches are not counted): per team and per person. */
export type NodeCounts = { teams: Record<string, number>; users: Record<string, number> };
const nodeInfoSchema = z.object({
  url: z.string().url().max(2000),
  boot: z.string().max(100),
  at: z.number(),
  counts: z.object({ teams: countsSchema, users: countsSchema }),
});
export type NodeInfo = z.infer<typeof nodeInfoSchema>;

function parseNode(text: string | null): NodeInfo | null {
  if (!text) return null;
  try {
    const parsed = nodeInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Take away a node's rows, unless it is alive (ARGV[2] = '1': even so, for its own successor). */
const REAP = `
if ARGV[2] ~= '1' and redis.call('EXISTS', KEYS[1]) == 1 then return false end
if ARGV[2] == '1' then redis.call('DEL', KEYS[5]) else redis.call('SET', KEYS[5], '1', 'PX', 3600000) end
local held = redis.call('HGETALL', KEYS[2])
local rows = {}
for i = 1, #held, 2 do
  local team = ARGV[3] .. held[i + 1]
  local row = redis.call('HGET', team, held[i])
  if row then rows[#rows + 1] = row end
  redis.call('HDEL', team, held[i])
  if redis.call('HGET', KEYS[4], held[i]) == held[i + 1] then redis.call('HDEL', KEYS[4], held[i]) end
end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
if ARGV[2] == '1' then redis.call('DEL', KEYS[1]) end
return rows
`;

/**
 * Refresh the heartbeat. 0: as before; 2: the node was no longer a member because another node took
 * its rows; 1: it was no longer a member and nobody took them (Redis lost its data: a restart
 * without persistence), so its rows must be written again.
 */
const BEAT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('SADD', KEYS[2], ARGV[3]) == 0 then return 0 end
if redis.call('DEL', KEYS[3]) == 1 then return 2 end
return 1
`;

export type RegistryOptions = { nodeId: string; nodeUrl: string; boot: string; ttlMs: number };

export class NodeRegistry {
  readonly #redis: RedisClient;
  readonly #opts: RegistryOptions;

  constructor(redis: RedisClient, opts: RegistryOptions) {
    this.#redis = redis;
    this.#opts = opts;
  }

  get nodeId(): string {
    return this.#opts.nodeId;
  }

  /**
   * Join: take away what a predecessor with this node id left (its browsers died with it, and it
   * may have died too recently for its heartbeat to have expired), then announce this node.
   * Returns the predecessor's rows.
   */
  async register(counts: NodeCounts, now = Date.now()): Promise<HeldRow[]> {
    const left = await this.#reap(this.#opts.nodeId, true);
    await this.beat(counts, now);
    return left;
  }

  /**
   * Refresh this node's heartbeat. 'reaped': it had expired and another node took this node's rows;
   * 'lost': Redis no longer knew this node (it lost its data), so the rows must be written again.
   */
  async beat(counts: NodeCounts, now = Date.now()): Promise<'ok' | 'reaped' | 'lost'> {
    const { nodeId, nodeUrl, boot, ttlMs } = this.#opts;
    const info: NodeInfo = { url: nodeUrl, boot, at: now, counts };
    const answer = await this.#redis.eval(
      BEAT,
      3,
      PORTAL_KEYS.node(nodeId),
      PORTAL_KEYS.nodes,
      PORTAL_KEYS.reaped(nodeId),
      JSON.stringify(info),
      String(ttlMs),
      nodeId,
    );
    return answer === 2 ? 'reaped' : answer === 1 ? 'lost' : 'ok';
  }

  /** Write (or rewrite) rows of browsers this node holds. */
  async put(rows: readonly HeldRow[]): Promise<void> {
    if (!rows.length) return;
    const m = this.#redis.multi();
    for (const row of rows) {
      m.hset(PORTAL_KEYS.team(row.teamId), row.id, JSON.stringify({ ...row, nodeId: this.#opts.nodeId }));
      m.hset(PORTAL_KEYS.held(this.#opts.nodeId), row.id, row.teamId);
      m.hset(PORTAL_KEYS.where, row.id, row.teamId);
    }
    await m.exec();
  }

  /** A browser this node held has ended. */
  async remove(instanceId: string, teamId: string): Promise<void> {
    await this.#redis
      .multi()
      .hdel(PORTAL_KEYS.team(teamId), instanceId)
      .hdel(PORTAL_KEYS.held(this.#opts.nodeId), instanceId)
      .hdel(PORTAL_KEYS.where, instanceId)
      .exec();
  }

  /** The team's rows on nodes that are alive, with each holder's address. */
  async teamRows(teamId: string): Promise<{ row: HeldRow; nodeUrl: string }[]> {
    const rows = (await this.#redis.hvals(PORTAL_KEYS.team(teamId)))
      .map(parseHeldRow)
      .filter((r): r is HeldRow => r !== null && r.teamId === teamId && r.nodeId !== null);
    const alive = await this.#alive([...new Set(rows.map((r) => r.nodeId as string))]);
    return rows.flatMap((row) => {
      const node = alive.get(row.nodeId as string);
      return node ? [{ row, nodeUrl: node.url }] : [];
    });
  }

  /** A browser by its id, on a node that is alive. */
  async locate(instanceId: string): Promise<{ row: HeldRow; nodeUrl: string } | null> {
    const teamId = await this.#redis.hget(PORTAL_KEYS.where, instanceId);
    if (!teamId) return null;
    const row = parseHeldRow((await this.#redis.hget(PORTAL_KEYS.team(teamId), instanceId)) ?? '');
    if (!row || row.id !== instanceId || row.teamId !== teamId || !row.nodeId) return null;
    const node = (await this.#alive([row.nodeId])).get(row.nodeId);
    return node ? { row, nodeUrl: node.url } : null;
  }

  /** The portal's browsers of `teamId` and of `userId` on the other nodes that are alive. */
  async elsewhere(teamId: string, userId: string): Promise<{ team: number; user: number }> {
    const others = (await this.#redis.smembers(PORTAL_KEYS.nodes)).filter((id) => id !== this.#opts.nodeId);
    let team = 0;
    let user = 0;
    for (const info of (await this.#alive(others)).values()) {
      team += info.counts.teams[teamId] ?? 0;
      user += info.counts.users[userId] ?? 0;
    }
    return { team, user };
  }

  /** Rows of every node whose heartbeat expired; each dead node's rows go to exactly one caller. */
  async reapDead(): Promise<HeldRow[]> {
    const others = (await this.#redis.smembers(PORTAL_KEYS.nodes)).filter((id) => id !== this.#opts.nodeId);
    if (!others.length) return [];
    const alive = await this.#alive(others);
    const out: HeldRow[] = [];
    for (const id of others) if (!alive.has(id)) out.push(...(await this.#reap(id, false)));
    return out;
  }

  /** A clean shutdown: this node's rows (normally none left by now) and heartbeat go. */
  async leave(): Promise<void> {
    await this.#reap(this.#opts.nodeId, true);
  }

  /** True the first time a node-to-node request's nonce is seen (within `ttlMs`). */
  async claimNonce(nonce: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.set(PORTAL_KEYS.nonce(nonce), this.#opts.nodeId, 'PX', ttlMs, 'NX')) === 'OK';
  }

  async #alive(ids: string[]): Promise<Map<string, NodeInfo>> {
    const out = new Map<string, NodeInfo>();
    if (!ids.length) return out;
    const values = await this.#redis.mget(ids.map(PORTAL_KEYS.node));
    ids.forEach((id, i) => {
      const info = parseNode(values[i] ?? null);
      if (info) out.set(id, info);
    });
    return out;
  }

  async #reap(nodeId: string, force: boolean): Promise<HeldRow[]> {
    const rows = (await this.#redis.eval(
      REAP,
      5,
      PORTAL_KEYS.node(nodeId),
      PORTAL_KEYS.held(nodeId),
      PORTAL_KEYS.nodes,
      PORTAL_KEYS.where,
      PORTAL_KEYS.reaped(nodeId),
      nodeId,
      force ? '1' : '0',
      PORTAL_KEYS.teamPrefix,
    )) as string[] | null;
    return (rows ?? []).map(parseHeldRow).filter((r): r is HeldRow => r !== null);
  }
}
