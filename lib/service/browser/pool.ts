import type { Logger } from 'pino';
import type { Chromium, StartHooks } from './chromium.ts';

/** Starts a browser: the Launcher (launcher.ts), with its next launch prepared ahead. */
export type LaunchBrowser = (o?: StartHooks) => Promise<Chromium>;

/**
 * Started browsers waiting to be handed out, so that /start answers without a cold start.
 * The pool refills itself in the background, one launch at a time, backing off after failures.
 */
export class BrowserPool {
  readonly #launch: LaunchBrowser;
  readonly #size: number;
  readonly #log: Logger;
  readonly #onChange: (idle: number) => void;
  readonly #idle: Chromium[] = [];
  #filling: Promise<void> | null = null;
  #closed = false;
  #failures = 0;
  #retryTimer: NodeJS.Timeout | null = null;

  constructor(launch: LaunchBrowser, size: number, log: Logger, onChange: (idle: number) => void = () => {}) {
    this.#launch = launch;
    this.#size = size;
    this.#log = log;
    this.#onChange = onChange;
  }

  get idle(): number {
    return this.#idle.length;
  }

  /** Begin filling; resolves once the pool is full the first time (or the first launch failed). */
  async start(): Promise<void> {
    await this.#fill();
  }

  /**
   * A warm browser if one waits, else a fresh one. `warm` says which. A start that must do
   * something before Chromium runs (`hooks`: a saved profile to restore) always gets a fresh one.
   */
  async take(hooks?: StartHooks): Promise<{ browser: Chromium; warm: boolean }> {
    if (this.#closed) throw new Error('the browser pool is closed');
    if (hooks) return { browser: await this.#launch(hooks), warm: false };
    const browser = this.#idle.shift();
    this.#onChange(this.#idle.length);
    void this.#fill();
    if (browser) return { browser, warm: true };
    return { browser: await this.#launch(), warm: false };
  }

  /** Stop refilling, wait for a launch under way, and close every idle browser. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    await this.#filling;
    const idle = this.#idle.splice(0);
    this.#onChange(0);
    await Promise.all(idle.map((b) => b.close()));
  }

  #fill(): Promise<void> {
    this.#filling ??= this.#fillLoop().finally(() => {
      this.#filling = null;
    });
    return this.#filling;
  }

  async #fillLoop(): Promise<void> {
    while (!this.#closed && this.#idle.length < this.#size) {
      let browser: Chromium;
      try {
        browser = await this.#launch();
        this.#failures = 0;
      } catch (err) {
        this.#failures++;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(this.#failures, 6));
        this.#log.error({ err, retryInMs: delay }, 'warm pool launch failed');
        this.#retryTimer = setTimeout(() => void this.#fill(), delay);
        this.#retryTimer.unref();
        return;
      }
      if (this.#closed) {
        await browser.close();
        return;
      }
      browser.once('exit', () => this.#evict(browser));
      this.#idle.push(browser);
      this.#onChange(this.#idle.length);
    }
  }

  #evict(browser: Chromium): void {
    const i = this.#idle.indexOf(browser);
    if (i < 0) return;
    this.#log.warn({ pid: browser.pid }, 'an idle pooled browser exited; replacing it');
    this.#idle.splice(i, 1);
    this.#onChange(this.#idle.length);
    void browser.close();
    void this.#fill();
  }
}
