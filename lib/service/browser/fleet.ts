import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { asDomainError, NotFound, ServiceUnavailable, TooManyRequests, type DomainError } from '#shared/errors.ts';
import type { ApiKey } from '../keys/store.ts';
import { BROWSER_ID_PREFIX, type EndReason } from '#shared/protocol/start.ts';
import type { UpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import type { Chromium } from './chromium.ts';
import type { BrowserPool } from './pool.ts';
import type { WarmProfiles } from './warm-profiles.ts';
import { StartQueue } from './start-queue.ts';

export type Instance = {
  readonly id: string;
  readonly keyId: string;
  readonly browser: Chromium;
  readonly createdAt: Date;
};

export type FleetOptions = {
  pool: BrowserPool;
  /** Browsers started ahead from saved profiles (warm-profiles.ts); none without. */
  warmProfiles?: WarmProfiles;
  /** Why launches keep failing on this node, or null (launch-health.ts): said to a client refused for it. */
  launchProblem?: () => string | null;
  capacity: number;
  lifetimeMs: number;
  log: Logger;
  onProvisioned?: (seconds: number, warm: boolean) => void;
  /** Done before the client gets the instance (its recording begins here); must not throw. */
  prepare?: (instance: Instance, key: ApiKey) => Promise<void>;
  onCountChange?: (live: number) => void;
  /** Clients waiting for room now (`/start?queue=`). */
  onQueue?: (waiting: number) => void;
  /** A waiting client got its turn after this many seconds. */
  onQueued?: (seconds: number) => void;
  /**
   * Where a key's limit is counted when several nodes share it (the cluster registry): a browser
   * is admitted there before it is started, and released when it ends or fails to start.
   */
  admission?: KeyAdmission;
};

export type KeyAdmission = {
  admit(browserId: string, keyId: string, max: number): Promise<boolean>;
  release(browserId: string): Promise<void>;
};

/** A saved profile a browser starts from, and saves into when it ends if `persist` (lib/service/profiles/profiles.ts `ProfileUse`). */
export type StartProfile = {
  readonly persist: boolean;
  /** Which key's profile (what a browser started ahead from it is kept under). */
  readonly id: string;
  /** The version stored when the start began; null when none is (the browser starts empty). */
  readonly version: string | null;
  /** Read and written into a new browser's folder once the start has its room, resolving to the
   * version written; a DomainError is the client's answer as is. */
  restore(profileDir: string, owner: number | null): Promise<string | null>;
  finish(profileDir: string): Promise<void>;
};

type Entry = { instance: Instance; lifetime: NodeJS.Timeout; ending: Promise<void> | null };

export const newBrowserId = (): string => BROWSER_ID_PREFIX + randomBytes(24).toString('base64url');

/** How often starts waiting for room look again when several nodes share the limits. */
const QUEUE_TICK_MS = 500;

const keyLimit = (key: ApiKey) =>
  new TooManyRequests(`this API key already holds its limit of ${key.maxInstances} concurrent browsers; close one first`, 5);

type QueueOptions = { ms: number; signal: AbortSignal | undefined; profile: StartProfile | undefined };

/** How long a browser's own exit waits to be seen as part of a shutdown before it counts as a crash. */
const SHUTDOWN_GRACE_MS = 250;

/**
 * The live browser instances, who owns each, and the limits on how many there may be.
 * An instance lives from provision() until end(); 'ended' tells the holder of its /start socket
 * why, once the browser is gone.
 */
export class BrowserFleet extends EventEmitter<{ started: [Instance]; ended: [Instance, EndReason] }> {
  readonly #opts: FleetOptions;
  readonly #entries = new Map<string, Entry>();
  /** Slots reserved by provisions still waiting for a browser. */
  #reserved = 0;
  readonly #reservedByKey = new Map<string, number>();
  #closing = false;
  /** Draining before a stop: no new browsers, the live ones kept. */
  #draining = false;
  /** Provisions under way, which shutdown waits for so that no browser outlives the service. */
  readonly #provisioning = new Set<Promise<unknown>>();
  /** Starts waiting for room (`/start?queue=`), fair across keys. */
  readonly #queue = new StartQueue<ApiKey>();
  #tick: NodeJS.Timeout | null = null;

  constructor(opts: FleetOptions) {
    super();
    this.#opts = opts;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** True once drain() was called: this node takes no new browsers. */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Take no new browsers from now on and keep the live ones (a node about to stop, so that a
   * rolling restart ends nobody's session). Resolves once none is left, or after `ms`.
   */
  async drain(ms: number): Promise<void> {
    this.#draining = true;
    this.#queue.clear(() => new ServiceUnavailable('this service node is shutting down and takes no new browsers; try again shortly', 5));
    const deadline = Date.now() + ms;
    while (this.#entries.size > 0 || this.#provisioning.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.off('ended', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, 1000));
        this.on('ended', done);
      });
    }
  }

  /** Browsers live or being started, as the capacity counts them (not ones ending): what placement across nodes weighs. */
  get load(): number {
    return this.#liveCount() + this.#reserved;
  }

  /** Instances of a key that count against its limit: live ones and ones being provisioned, not ones ending. */
  countFor(keyId: string): number {
    let n = this.#reservedByKey.get(keyId) ?? 0;
    for (const e of this.#entries.values()) if (e.instance.keyId === keyId && !e.ending) n++;
    return n;
  }

  /**
   * A new instance for `key`, within the machine's capacity and the key's own limit; it ends with
   * `lifetime` after `lifetimeMs` (the client's own, when shorter than the operator's). With
   * `queueMs`, a start that finds no room waits up to that long for its turn (start-queue.ts)
   * instead of being refused at once; `signal` (its client went away) takes it out of the queue,
   * and a launch that then fails is not tried again. With `upstream`, the browser's traffic leaves through the tenant's own proxy (decision 0104).
   * With `profile`, the browser starts from it (#take), and saves into it as it ends.
   */
  provision(
    key: ApiKey,
    {
      lifetimeMs,
      queueMs = 0,
      signal,
      upstream = null,
      profile,
    }: { lifetimeMs?: number; queueMs?: number; signal?: AbortSignal; upstream?: UpstreamProxy | null; profile?: StartProfile } = {},
  ): Promise<Instance> {
    const provisioning = this.#provision(
      key,
      Math.min(lifetimeMs ?? Infinity, this.#opts.lifetimeMs),
      { ms: queueMs, signal, profile },
      upstream,
    );
    this.#provisioning.add(provisioning);
    void provisioning.catch(() => {}).finally(() => this.#provisioning.delete(provisioning));
    return provisioning;
  }

  /**
   * A launch that fails (a crash at start, a full disk) is tried once more before the client hears
   * 503; not one refused for a reason meant for the client (a DomainError, such as a saved profile
   * that cannot be read), nor one whose client went away (`signal`).
   */
  async #takeWithRetry(
    profile: StartProfile | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Awaited<ReturnType<BrowserPool['take']>>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const taken = await this.#take(profile);
        // Nobody has held this browser yet, so its close cannot have begun nor a save be taken: this one is.
        if (profile?.persist && taken.browser.keepProfileOnEnd((dir) => profile.finish(dir)) !== 'kept') {
          await taken.browser.close();
          throw new Error('a browser just started refused to keep its profile');
        }
        return taken;
      } catch (err) {
        if (asDomainError(err) || signal?.aborted) throw err;
        if (attempt >= 2 || this.#closing) {
          this.#opts.log.error({ err, attempt }, 'browser launch failed');
          const problem = this.#opts.launchProblem?.();
          // A node whose launches keep failing says why: trying again soon would not help.
          throw problem
            ? new ServiceUnavailable(`this node cannot start browsers: ${problem}`, 30)
            : new ServiceUnavailable('could not start a browser; try again shortly', 5);
        }
        this.#opts.log.warn({ err, attempt }, 'browser launch failed; trying once more');
      }
    }
  }

  /**
   * A browser for a start: from the pool without a profile, or from a profile that holds nothing yet
   * (its first persisting use); from a profile, the one started ahead from its stored version when
   * there is one, else a fresh one it is restored into. A start that does not save into the profile
   * leaves one started ahead for the next start from it (a saving one does as it is saved).
   */
  async #take(profile: StartProfile | undefined): Promise<Awaited<ReturnType<BrowserPool['take']>>> {
    const { pool, warmProfiles } = this.#opts;
    if (!profile || profile.version === null) return pool.take();
    const ahead = warmProfiles?.take(profile.id, profile.version);
    const taken = ahead
      ? { browser: ahead, warm: true }
      : await pool.take({
          beforeStart: async (dir, owner) => {
            await profile.restore(dir, owner);
          },
        });
    if (!profile.persist) warmProfiles?.prepare(profile);
    return taken;
  }

  /**
   * Room for one more browser of `key`, then a browser from the pool, admitted across nodes when
   * there are several: at once, or after waiting in the queue until `queue.ms` passes. The room
   * stays reserved for the caller, which releases it as it registers the instance.
   */
  async #acquire(key: ApiKey, queue: QueueOptions): Promise<{ id: string; taken: Awaited<ReturnType<BrowserPool['take']>> }> {
    const { admission } = this.#opts;
    const deadline = Date.now() + queue.ms;
    for (;;) {
      await this.#room(key, deadline, queue.signal);
      const id = newBrowserId();
      let taken: Awaited<ReturnType<BrowserPool['take']>> | null = null;
      try {
        if (!admission || (await admission.admit(id, key.id, key.maxInstances))) {
          try {
            taken = await this.#takeWithRetry(queue.profile, queue.signal);
          } catch (err) {
            await admission?.release(id);
            throw err;
          }
        } else if (Date.now() >= deadline) {
          throw keyLimit(key); // the key's limit across nodes
        }
      } catch (err) {
        this.#reserve(key.id, -1);
        this.#dispatch();
        throw err;
      }
      // Taken: the room stays reserved until the caller registers the instance in it.
      if (taken) return { id, taken };
      this.#reserve(key.id, -1);
      // Refused across nodes: the key's browsers on other nodes end without a word to this one.
      this.#dispatch();
      await sleep(Math.min(QUEUE_TICK_MS, Math.max(0, deadline - Date.now())), undefined, { signal: queue.signal });
    }
  }

  async #provision(key: ApiKey, lifetimeMs: number, queue: QueueOptions, upstream: UpstreamProxy | null): Promise<Instance> {
    const { admission } = this.#opts;
    const t0 = performance.now();
    const { id, taken } = await this.#acquire(key, queue);
    // Before anyone holds the browser: a warm one has opened no connection yet.
    if (upstream) taken.browser.routeThrough(upstream);
    const instance: Instance = { id, keyId: key.id, browser: taken.browser, createdAt: new Date() };
    this.#reserve(key.id, -1); // the instance takes the room from here on: no await before it is registered
    if (this.#closing) {
      await taken.browser.close();
      await admission?.release(id);
      throw new ServiceUnavailable('the service is shutting down');
    }
    const lifetime = setTimeout(() => void this.end(instance.id, 'lifetime'), lifetimeMs);
    lifetime.unref();
    this.#entries.set(instance.id, { instance, lifetime, ending: null });
    taken.browser.once('exit', ({ expected }) => {
      if (!expected) this.#exited(instance.id);
    });
    await this.#opts.prepare?.(instance, key);
    this.#opts.onCountChange?.(this.#entries.size);
    this.#opts.onProvisioned?.((performance.now() - t0) / 1000, taken.warm);
    this.#opts.log.info({ browserId: instance.id, keyId: key.id, pid: taken.browser.pid, warm: taken.warm }, 'instance provisioned');
    this.emit('started', instance);
    return instance;
  }

  /** The instance `id` if it is live and belongs to `keyId`; another key's instance is not found either. */
  get(id: string, keyId: string): Instance {
    const entry = this.#entries.get(id);
    if (!entry || entry.ending || entry.instance.keyId !== keyId)
      throw new NotFound('no live browser with that X-Browser-ID for this API key');
    return entry.instance;
  }

  /** The live instance `id`, whichever key holds it (a connect ticket names it; the ticket was checked by its caller). */
  find(id: string): Instance | undefined {
    const entry = this.#entries.get(id);
    return entry && !entry.ending ? entry.instance : undefined;
  }

  listFor(keyId: string): Instance[] {
    return [...this.#entries.values()].filter((e) => e.instance.keyId === keyId && !e.ending).map((e) => e.instance);
  }

  /** Every live instance of every key (not ones ending). */
  live(): Instance[] {
    return [...this.#entries.values()].filter((e) => !e.ending).map((e) => e.instance);
  }

  keysInUse(): Set<string> {
    return new Set([...this.#entries.values()].map((e) => e.instance.keyId));
  }

  /** End an instance: kill its browser, remove its profile, then emit 'ended'. Idempotent. */
  end(id: string, reason: EndReason): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return Promise.resolve();
    entry.ending ??= (async () => {
      clearTimeout(entry.lifetime);
      // An ending instance no longer counts against its key (countFor), here or on the other nodes.
      const released = this.#opts.admission
        ?.release(id)
        .catch((err: Error) => this.#opts.log.warn({ err, browserId: id }, 'could not release a browser'));
      await entry.instance.browser.close();
      this.#entries.delete(id);
      await released;
      this.#opts.onCountChange?.(this.#entries.size);
      this.#opts.log.info({ browserId: id, reason }, 'instance ended');
      this.emit('ended', entry.instance, reason);
    })();
    // An ending instance counts no more: its room goes to the next client waiting for one.
    this.#dispatch();
    return entry.ending;
  }

  /**
   * A browser that exited by itself crashed, unless the service is being stopped with it: systemd
   * signals every process of the unit at once, and a browser may see the signal a moment before
   * the service does. Such a browser ended with the shutdown, and its client hears 1001.
   */
  #exited(id: string): void {
    if (this.#closing) return void this.end(id, 'shutdown');
    setTimeout(() => void this.end(id, this.#closing ? 'shutdown' : 'crashed'), SHUTDOWN_GRACE_MS).unref();
  }

  /** End every instance and refuse new ones. */
  async shutdown(): Promise<void> {
    this.#closing = true;
    this.#queue.clear(() => new ServiceUnavailable('the service is shutting down'));
    await Promise.allSettled([...this.#provisioning]);
    await Promise.all([...this.#entries.keys()].map((id) => this.end(id, 'shutdown')));
  }

  /** Clients waiting for room to start a browser, and how long the first of them has waited. */
  get queued(): { waiting: number; oldestSeconds: number } {
    return { waiting: this.#queue.size, oldestSeconds: this.#queue.oldestWaitMs() / 1000 };
  }

  /** Why `key` cannot have another browser now (the machine's capacity, the key's limit), or null. */
  #refusal(key: ApiKey): DomainError | null {
    if (this.#closing) return new ServiceUnavailable('the service is shutting down');
    if (this.#draining) return new ServiceUnavailable('this service node is shutting down and takes no new browsers; try again shortly', 5);
    if (this.#liveCount() + this.#reserved >= this.#opts.capacity)
      return new ServiceUnavailable(`the service is at capacity (${this.#opts.capacity} browsers); try again shortly`, 5);
    if (this.countFor(key.id) >= key.maxInstances) return keyLimit(key);
    return null;
  }

  /** Take room for one start of `key` (reserved until the start registers its instance or fails): at once, or by a turn in the queue. */
  async #room(key: ApiKey, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    const refusal = this.#refusal(key);
    if (!refusal) return this.#reserve(key.id, +1);
    if (Date.now() >= deadline || this.#closing || this.#draining) throw refusal;
    this.#opts.onQueue?.(this.#queue.size + 1);
    this.#ticking();
    try {
      const waitedMs = await this.#queue.wait(key, deadline, signal, () => this.#refusal(key) ?? refusal);
      this.#opts.onQueued?.(waitedMs / 1000);
    } finally {
      this.#opts.onQueue?.(this.#queue.size);
    }
  }

  /** Give turns to waiters while there is room for them, reserving it as each is served. */
  #dispatch(): void {
    if (this.#queue.size === 0) return;
    this.#queue.dispatch((key) => {
      if (this.#refusal(key)) return false;
      this.#reserve(key.id, +1);
      return true;
    });
  }

  /**
   * With several nodes, room can come from another node (a key's browser ending there): look again
   * every QUEUE_TICK_MS while anyone waits. One node alone hears of all its room itself.
   */
  #ticking(): void {
    if (this.#tick || !this.#opts.admission) return;
    this.#tick = setInterval(() => {
      this.#dispatch();
      if (this.#queue.size === 0 && this.#tick) {
        clearInterval(this.#tick);
        this.#tick = null;
      }
    }, QUEUE_TICK_MS);
    this.#tick.unref();
  }

  #liveCount(): number {
    let n = 0;
    for (const e of this.#entries.values()) if (!e.ending) n++;
    return n;
  }

  #reserve(keyId: string, delta: number): void {
    this.#reserved += delta;
    const n = (this.#reservedByKey.get(keyId) ?? 0) + delta;
    if (n > 0) this.#reservedByKey.set(keyId, n);
    else this.#reservedByKey.delete(keyId);
  }
}
