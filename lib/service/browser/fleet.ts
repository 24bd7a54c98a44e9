import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { NotFound, ServiceUnavailable, TooManyRequests } from '#shared/errors.ts';
import type { ApiKey } from '../keys/store.ts';
import { BROWSER_ID_PREFIX, type EndReason } from '#shared/protocol/start.ts';
import type { Chromium } from './chromium.ts';
import type { BrowserPool } from './pool.ts';

export type Instance = {
  readonly id: string;
  readonly keyId: string;
  readonly browser: Chromium;
  readonly createdAt: Date;
};

export type FleetOptions = {
  pool: BrowserPool;
  capacity: number;
  lifetimeMs: number;
  log: Logger;
  onProvisioned?: (seconds: number, warm: boolean) => void;
  /** Done before the client gets the instance (its recording begins here); must not throw. */
  prepare?: (instance: Instance, key: ApiKey) => Promise<void>;
  onCountChange?: (live: number) => void;
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

type Entry = { instance: Instance; lifetime: NodeJS.Timeout; ending: Promise<void> | null };

export const newBrowserId = (): string => BROWSER_ID_PREFIX + randomBytes(24).toString('base64url');

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
   * `lifetime` after `lifetimeMs` (the client's own, when shorter than the operator's).
   */
  provision(key: ApiKey, { lifetimeMs }: { lifetimeMs?: number } = {}): Promise<Instance> {
    const provisioning = this.#provision(key, Math.min(lifetimeMs ?? Infinity, this.#opts.lifetimeMs));
    this.#provisioning.add(provisioning);
    void provisioning.catch(() => {}).finally(() => this.#provisioning.delete(provisioning));
    return provisioning;
  }

  /** A launch that fails (a crash at start, a full disk) is tried once more before the client hears 503. */
  async #takeWithRetry(): Promise<Awaited<ReturnType<BrowserPool['take']>>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#opts.pool.take();
      } catch (err) {
        if (err instanceof ServiceUnavailable) throw err;
        if (attempt >= 2 || this.#closing) {
          this.#opts.log.error({ err, attempt }, 'browser launch failed');
          throw new ServiceUnavailable('could not start a browser; try again shortly', 5);
        }
        this.#opts.log.warn({ err, attempt }, 'browser launch failed; trying once more');
      }
    }
  }

  async #provision(key: ApiKey, lifetimeMs: number): Promise<Instance> {
    if (this.#closing) throw new ServiceUnavailable('the service is shutting down');
    if (this.#draining) throw new ServiceUnavailable('this service node is shutting down and takes no new browsers; try again shortly', 5);
    if (this.#liveCount() + this.#reserved >= this.#opts.capacity) {
      throw new ServiceUnavailable(`the service is at capacity (${this.#opts.capacity} browsers); try again shortly`, 5);
    }
    if (this.countFor(key.id) >= key.maxInstances) {
      throw new TooManyRequests(`this API key already holds its limit of ${key.maxInstances} concurrent browsers; close one first`, 5);
    }
    const id = newBrowserId();
    const { admission } = this.#opts;
    this.#reserve(key.id, +1);
    const t0 = performance.now();
    let taken: Awaited<ReturnType<BrowserPool['take']>>;
    try {
      if (admission && !(await admission.admit(id, key.id, key.maxInstances)))
        throw new TooManyRequests(`this API key already holds its limit of ${key.maxInstances} concurrent browsers; close one first`, 5);
      try {
        taken = await this.#takeWithRetry();
      } catch (err) {
        await admission?.release(id);
        throw err;
      }
    } finally {
      this.#reserve(key.id, -1);
    }
    const instance: Instance = { id, keyId: key.id, browser: taken.browser, createdAt: new Date() };
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
    await Promise.allSettled([...this.#provisioning]);
    await Promise.all([...this.#entries.keys()].map((id) => this.end(id, 'shutdown')));
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
