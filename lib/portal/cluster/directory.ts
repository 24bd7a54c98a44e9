import { EventEmitter } from 'node:events';
import type { Logger } from '#shared/log.ts';
import { byStart, localThumbnails, type BrowserDirectory, type Located, type Thumbnail, type Usage } from '../live/directory.ts';
import { rowOf, type HeldRow } from '../live/held-row.ts';
import type { LiveEnd } from '../live/live-browser.ts';
import type { EndedTeamBrowser, Starter, TeamBrowsers } from '../live/team-browsers.ts';
import type { ChangeBus } from './changes.ts';
import type { NodeClient } from './node-client.ts';
import type { NodeCounts, NodeRegistry } from './registry.ts';

export type ClusterDirectoryOptions = {
  local: TeamBrowsers;
  registry: NodeRegistry;
  bus: ChangeBus;
  client: NodeClient;
  log: Logger;
  /** How often the heartbeat is refreshed and dead nodes looked for (the registry's ttl is a few of these). */
  beatMs: number;
  /** A browser that ended with its node, to be recorded; exactly one node hears of each. */
  onLost: (ended: EndedTeamBrowser) => void;
};

/** Changes of one team within this long are written to Redis, and announced, once. */
const FLUSH_MS = 50;

/**
 * The team browsers of every portal node (decision 0095): this node's own from its TeamBrowsers,
 * the others' rows from the Redis registry; changes announced to every node over pub/sub; stop and
 * rename of another node's browser sent to that node, signed; the heartbeat, and the taking away
 * of dead nodes' browsers (recorded as ended with their reason).
 */
export class ClusterDirectory implements BrowserDirectory {
  readonly local: TeamBrowsers;
  readonly nodeId: string;
  readonly #opts: ClusterDirectoryOptions;
  readonly #events = new EventEmitter<{ change: [string] }>();
  readonly #dirty = new Set<string>();
  #flush: NodeJS.Timeout | null = null;
  #writes: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;
  #closed = false;

  constructor(opts: ClusterDirectoryOptions) {
    this.#opts = opts;
    this.local = opts.local;
    this.nodeId = opts.registry.nodeId;
    this.#events.setMaxListeners(0);
  }

  /** Join the cluster: take away a predecessor's browsers, announce this node, hear the others. */
  async start(): Promise<void> {
    const { registry, bus, local, log } = this.#opts;
    this.#lost(await registry.register(this.#counts()), {
      reason: 'portal-restarted',
      message: 'the portal node that held it restarted',
    });
    await bus.subscribe(
      (teamId) => this.#events.emit('change', teamId),
      () => log.warn('change channel resumed; changes meanwhile arrive with the next refresh'),
    );
    local.on('change', (teamId) => {
      this.#markDirty(teamId);
      this.#events.emit('change', teamId);
    });
    local.on('ended', (e) => this.#queue(() => registry.remove(e.id, e.teamId)));
    this.#timer = setInterval(() => void this.#tick(), this.#opts.beatMs);
    this.#timer.unref();
  }

  async listForTeam(teamId: string): Promise<HeldRow[]> {
    const mine = this.local.listForTeam(teamId).map((i) => rowOf(i, this.nodeId));
    // With Redis away, a dashboard still shows what this node holds.
    const found = await this.#opts.registry.teamRows(teamId).catch((err: Error) => {
      this.#opts.log.warn({ err, teamId }, 'could not read the other nodes’ browsers');
      return [];
    });
    const others = found.map((r) => r.row).filter((r) => r.nodeId !== this.nodeId);
    return [...mine, ...others].sort(byStart);
  }

  async find(instanceId: string): Promise<Located | null> {
    const local = this.local.get(instanceId);
    if (local) return { row: rowOf(local, this.nodeId), local, holderUrl: null };
    const found = await this.#opts.registry.locate(instanceId);
    // A row of this node's that this process does not hold is a leftover, not a browser.
    if (!found || found.row.nodeId === this.nodeId) return null;
    return { row: found.row, local: null, holderUrl: found.nodeUrl };
  }

  async findByBrowserId(teamId: string, browserId: string): Promise<Located | null> {
    const local = this.local.listForTeam(teamId).find((i) => i.live.held.id === browserId);
    if (local) return { row: rowOf(local, this.nodeId), local, holderUrl: null };
    const found = (await this.#opts.registry.teamRows(teamId)).find((r) => r.row.browserId === browserId && r.row.nodeId !== this.nodeId);
    return found ? { row: found.row, local: null, holderUrl: found.nodeUrl } : null;
  }

  async usage(teamId: string, userId: string): Promise<Usage> {
    const others = await this.elsewhere(teamId, userId);
    return { team: this.local.countForTeam(teamId) + others.team, user: this.local.countForUser(userId) + others.user };
  }

  async elsewhere(teamId: string, userId: string): Promise<Usage> {
    // The portal's own limits are a courtesy (the service's per-key limits hold regardless): with
    // Redis away, this node counts what it sees.
    return this.#opts.registry.elsewhere(teamId, userId).catch((err: Error) => {
      this.#opts.log.warn({ err }, 'could not read the other nodes’ browser counts');
      return { team: 0, user: 0 };
    });
  }

  async stop(at: Located, end: LiveEnd, by?: Starter): Promise<void> {
    if (at.local) return this.local.stop(at.local.id, end, by);
    await this.#opts.client.action(at.holderUrl, at.row.id, 'stop', { reason: end.reason, message: end.message, ...(by ? { by } : {}) });
  }

  async rename(at: Located, name: string): Promise<void> {
    if (at.local) return this.local.rename(at.local.id, name);
    await this.#opts.client.action(at.holderUrl, at.row.id, 'rename', { name });
  }

  onChange(listener: (teamId: string) => void): () => void {
    this.#events.on('change', listener);
    return () => this.#events.off('change', listener);
  }

  changed(teamId: string): void {
    this.#events.emit('change', teamId);
    this.#opts.bus.publish(teamId);
  }

  async thumbnails(teamId: string): Promise<Thumbnail[]> {
    const remote = (await this.#opts.registry.teamRows(teamId).catch(() => [])).filter((r) => r.row.nodeId !== this.nodeId);
    const [mine, theirs] = await Promise.all([
      localThumbnails(this.local, teamId),
      Promise.all(remote.map((r) => this.#opts.client.thumbnail(r.nodeUrl, r.row.id))),
    ]);
    return [...mine, ...theirs.filter((t): t is Thumbnail => t !== null)];
  }

  async settle(): Promise<void> {
    if (this.#flush) {
      clearTimeout(this.#flush);
      this.#flush = null;
      this.#writeDirty();
    }
    await this.#writes;
  }

  /** Leave cleanly: call after the local browsers have ended (their rows go with them). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.settle();
    await this.#opts.registry.leave().catch((err: Error) => this.#opts.log.warn({ err }, 'could not leave the registry'));
  }

  #counts(): NodeCounts {
    const counts: NodeCounts = { teams: {}, users: {} };
    for (const i of this.local.all()) {
      if (i.attached) continue;
      counts.teams[i.teamId] = (counts.teams[i.teamId] ?? 0) + 1;
      counts.users[i.startedBy.userId] = (counts.users[i.startedBy.userId] ?? 0) + 1;
    }
    return counts;
  }

  #queue(op: () => Promise<unknown>): void {
    this.#writes = this.#writes.then(op).then(
      () => undefined,
      (err: Error) => this.#opts.log.warn({ err }, 'could not write to the browser registry'),
    );
  }

  #markDirty(teamId: string): void {
    this.#dirty.add(teamId);
    if (this.#flush || this.#closed) return;
    this.#flush = setTimeout(() => {
      this.#flush = null;
      this.#writeDirty();
    }, FLUSH_MS);
  }

  #writeDirty(): void {
    const teams = [...this.#dirty];
    this.#dirty.clear();
    this.#queue(async () => {
      await this.#opts.registry.put(teams.flatMap((t) => this.local.listForTeam(t).map((i) => rowOf(i, this.nodeId))));
      await this.#beat();
      for (const t of teams) this.#opts.bus.publish(t);
    });
  }

  async #tick(): Promise<void> {
    if (this.#ticking || this.#closed) return;
    this.#ticking = true;
    const { registry, log } = this.#opts;
    try {
      await this.#beat();
      this.#lost(await registry.reapDead(), { reason: 'portal-node-lost', message: 'the portal node that held it stopped answering' });
    } catch (err) {
      log.warn({ err }, 'portal node heartbeat failed');
    } finally {
      this.#ticking = false;
    }
  }

  async #beat(): Promise<void> {
    const beat = await this.#opts.registry.beat(this.#counts());
    if (beat === 'ok') return;
    if (beat === 'lost') {
      // Redis forgot this node (restarted empty): write every row again.
      this.#opts.log.warn('the registry no longer knew this node; writing its browsers again');
      for (const i of this.local.all()) this.#markDirty(i.teamId);
      return;
    }
    // This node's heartbeat lapsed and another node recorded its browsers as ended: let go of
    // them, so that nothing runs that the others think ended.
    this.#opts.log.error('this node’s heartbeat lapsed and its browsers were taken as lost; ending them');
    for (const i of this.local.all())
      this.local.stop(i.id, { reason: 'portal-node-lost', message: 'the portal node that held it lost contact', recordedElsewhere: true });
  }

  #lost(rows: HeldRow[], end: LiveEnd): void {
    const teams = new Set<string>();
    const endedAt = Date.now();
    for (const row of rows) {
      teams.add(row.teamId);
      this.#opts.log.info({ instanceId: row.id, nodeId: row.nodeId, reason: end.reason }, 'team browser lost with its node');
      this.#opts.onLost({
        id: row.id,
        browserId: row.browserId,
        teamId: row.teamId,
        name: row.name,
        startedBy: row.startedBy,
        keyName: row.keyName,
        startedAt: row.startedAt,
        endedAt,
        reason: end.reason,
        message: end.message,
        stoppedBy: null,
        attached: row.attached,
        recordedElsewhere: false,
      });
    }
    for (const t of teams) this.changed(t);
  }
}
