import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { AccessChange } from './portal-data.ts';

/** The channel every portal node and CLI of one database notifies access changes on (a plain identifier). */
export const ACCESS_CHANNEL = 'periscope_portal_access';

/** What travels in a notification: the sender's id (so it can skip its own) and the change. */
type Payload = { o: string; u: string | null; t: string | null };

/** The NOTIFY payload for `change`, sent by the process `origin`. */
export const accessPayload = (origin: string, change: AccessChange): string =>
  JSON.stringify({ o: origin, u: change.userId, t: change.teamId } satisfies Payload);

function parsePayload(text: string | undefined): Payload | null {
  try {
    const p = JSON.parse(text ?? '') as Partial<Payload>;
    if (typeof p.o !== 'string') return null;
    const id = (v: unknown) => (typeof v === 'string' && v.length <= 200 ? v : null);
    return { o: p.o, u: id(p.u), t: id(p.t) };
  } catch {
    return null;
  }
}

/**
 * Access changes of one PostgreSQL database: this process's own, told at once after their commit,
 * and every other process's (another portal node, the operator CLI), received by LISTEN on one
 * dedicated connection while anyone listens. A lost connection is re-opened with back-off, and
 * listeners are then told "someone's access may have changed" (userId null), since
 * notifications sent meanwhile are lost.
 */
export class PostgresAccessChannel {
  readonly origin: string;
  readonly #config: pg.ClientConfig;
  readonly #emitter = new EventEmitter<{ change: [AccessChange] }>();
  readonly #channel: string;
  readonly #retryMs: { first: number; max: number };
  #client: pg.Client | null = null;
  #connecting: Promise<void> | null = null;
  #retry: NodeJS.Timeout | null = null;
  #delay: number;
  #closed = false;

  constructor(config: pg.ClientConfig, origin: string, channel = ACCESS_CHANNEL, retryMs = { first: 250, max: 10_000 }) {
    this.#emitter.setMaxListeners(0);
    this.#config = config;
    this.origin = origin;
    this.#channel = channel;
    this.#retryMs = retryMs;
    this.#delay = retryMs.first;
  }

  /** Add a listener; the first one opens the LISTEN connection. Returns the unsubscribe. */
  subscribe(listener: (change: AccessChange) => void): () => void {
    this.#emitter.on('change', listener);
    this.#open();
    return () => {
      this.#emitter.off('change', listener);
      if (this.#emitter.listenerCount('change') === 0) this.#stop();
    };
  }

  /** Tell this process's listeners of its own committed change (on a microtask, like SQLite's). */
  local(change: AccessChange): void {
    queueMicrotask(() => this.#emitter.emit('change', change));
  }

  /** Resolves once notifications from other processes are being received (for tests and start-up). */
  async listening(): Promise<void> {
    while (this.#connecting) await this.#connecting;
    if (!this.#client && this.#emitter.listenerCount('change') > 0 && !this.#closed) {
      this.#open();
      await this.listening();
    }
  }

  close(): void {
    this.#closed = true;
    this.#emitter.removeAllListeners();
    this.#stop();
  }

  #open(): void {
    if (this.#closed || this.#client || this.#connecting || this.#retry) return;
    const client = new pg.Client(this.#config);
    this.#connecting = (async () => {
      try {
        client.on('notification', (n) => this.#received(n));
        client.on('error', () => this.#lost(client));
        client.on('end', () => this.#lost(client));
        await client.connect();
        await client.query(`LISTEN ${this.#channel}`);
        // The connection waits for notifications only: it must not keep a CLI or a test alive.
        (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        if (this.#emitter.listenerCount('change') === 0 || this.#closed) {
          await client.end().catch(() => {});
          return;
        }
        const reconnected = this.#delay !== this.#retryMs.first;
        this.#client = client;
        this.#delay = this.#retryMs.first;
        // Whatever was notified while no connection listened is lost: have everyone re-check.
        if (reconnected) this.#emitter.emit('change', { userId: null, teamId: null });
      } catch {
        client.removeAllListeners();
        await client.end().catch(() => {});
        this.#scheduleRetry();
      } finally {
        this.#connecting = null;
      }
    })();
  }

  #received(n: pg.Notification): void {
    if (n.channel !== this.#channel) return;
    const p = parsePayload(n.payload);
    if (!p) return (this.#emitter.emit('change', { userId: null, teamId: null }), undefined);
    if (p.o === this.origin) return; // told locally already, right after the commit
    this.#emitter.emit('change', { userId: p.u, teamId: p.t });
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    client.removeAllListeners();
    client.on('error', () => {});
    void client.end().catch(() => {});
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry || this.#emitter.listenerCount('change') === 0) return;
    const delay = this.#delay;
    this.#delay = Math.min(this.#delay * 2, this.#retryMs.max);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#open();
    }, delay);
    this.#retry.unref();
  }

  #stop(): void {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    this.#delay = this.#retryMs.first;
    const client = this.#client;
    this.#client = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      void client.end().catch(() => {});
    }
  }
}
