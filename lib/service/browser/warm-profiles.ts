import type { Logger } from 'pino';
import type { Chromium } from './chromium.ts';
import type { LaunchBrowser } from './pool.ts';

/** How long a browser started ahead from a profile waits for a start before it is closed. */
export const WARM_PROFILE_IDLE_MS = 10 * 60_000;

/** What a warm browser is started from: a key's profile (`id`, profiles.ts `profileId`) and the way
 * to restore it, which resolves to the version it wrote (null: none is stored). */
export type WarmSource = {
  readonly id: string;
  restore(profileDir: string, owner: number | null): Promise<string | null>;
};

type Ready = { browser: Chromium; version: string; timer: NodeJS.Timeout; onExit: () => void };

/**
 * Browsers started ahead from saved profiles (decision 0106, "warm profiles"). A start from a profile
 * cannot take a warm browser of the pool (pool.ts): Chromium reads its user data folder from its
 * first moment, so the profile must be in place before it runs. Instead, after a start from a
 * profile and after a profile is saved on this node, one browser is started from the version now
 * stored and kept for the same key's next start from that profile, which takes it as warm.
 *
 * - One per profile, at most `size` profiles (the least recently prepared closed first), each kept
 *   WARM_PROFILE_IDLE_MS at most.
 * - Handed out only under the same key and profile (`id`), and only when the version it holds is
 *   the one stored when that start began (otherwise closed): a save on another node is seen so.
 * - A profile saved or removed on this node drops its browser at once (drop()), and so does one
 *   being prepared.
 * - Preparing takes a turn of the profile work like any restore (profiles.ts), and a failed one is
 *   logged and forgotten: the next start from the profile is a cold one, as without this.
 */
export class WarmProfiles {
  readonly #launch: LaunchBrowser;
  readonly #size: number;
  readonly #log: Logger;
  readonly #onChange: (ready: number) => void;
  /** In the order prepared: the first is the least recently prepared. */
  readonly #ready = new Map<string, Ready>();
  /** Profiles being prepared, each with the number of its preparation: a drop meanwhile makes it stale. */
  readonly #preparing = new Map<string, number>();
  #prepared = 0;
  #closed = false;

  constructor(launch: LaunchBrowser, size: number, log: Logger, onChange: (ready: number) => void = () => {}) {
    this.#launch = launch;
    this.#size = size;
    this.#log = log;
    this.#onChange = onChange;
  }

  /** Browsers ready now. */
  get ready(): number {
    return this.#ready.size;
  }

  /** The browser kept for profile `id` if it holds `version` (taken out); else null, and one holding another version is closed. */
  take(id: string, version: string): Chromium | null {
    const ready = this.#ready.get(id);
    if (!ready) return null;
    this.#forget(id, ready);
    if (ready.version === version) return ready.browser;
    void ready.browser.close();
    return null;
  }

  /** Start a browser from `source` in the background and keep it, unless one is kept or on its way already. */
  prepare(source: WarmSource): void {
    const { id } = source;
    if (this.#closed || this.#size <= 0 || this.#ready.has(id) || this.#preparing.has(id)) return;
    const preparation = ++this.#prepared;
    this.#preparing.set(id, preparation);
    let version: string | null = null;
    const current = () => !this.#closed && this.#preparing.get(id) === preparation;
    this.#launch({
      beforeStart: async (dir, owner) => {
        version = await source.restore(dir, owner);
      },
    }).then(
      (browser) => {
        if (!current() || version === null) {
          if (current()) this.#preparing.delete(id);
          void browser.close();
          return;
        }
        this.#preparing.delete(id);
        this.#keep(id, browser, version);
      },
      (err: unknown) => {
        if (current()) this.#preparing.delete(id);
        this.#log.warn({ err }, 'could not start a browser ahead from a saved profile; its next start is a cold one');
      },
    );
  }

  /** Profile `id` changed (saved or removed): its browser, kept or on its way, is stale. */
  drop(id: string): void {
    this.#preparing.delete(id);
    const ready = this.#ready.get(id);
    if (!ready) return;
    this.#forget(id, ready);
    void ready.browser.close();
  }

  /** Close every kept browser; those on their way are closed as they come. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#preparing.clear();
    const all = [...this.#ready];
    for (const [id, ready] of all) this.#forget(id, ready);
    await Promise.all(all.map(([, r]) => r.browser.close()));
  }

  #keep(id: string, browser: Chromium, version: string): void {
    const onExit = () => {
      if (this.#ready.get(id)?.browser !== browser) return;
      this.#log.warn({ pid: browser.pid }, 'a browser started ahead from a saved profile exited');
      this.drop(id);
    };
    const timer = setTimeout(() => this.drop(id), WARM_PROFILE_IDLE_MS);
    timer.unref();
    browser.once('exit', onExit);
    this.#ready.set(id, { browser, version, timer, onExit });
    for (const [oldest, ready] of this.#ready) {
      if (this.#ready.size <= this.#size) break;
      this.#forget(oldest, ready);
      void ready.browser.close();
    }
    this.#onChange(this.#ready.size);
  }

  #forget(id: string, ready: Ready): void {
    clearTimeout(ready.timer);
    ready.browser.off('exit', ready.onExit);
    this.#ready.delete(id);
    this.#onChange(this.#ready.size);
  }
}
