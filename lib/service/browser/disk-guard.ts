import type { Logger } from 'pino';
import { diskBytes } from './disk-usage.ts';
import type { BrowserFleet } from './fleet.ts';

export type DiskGuardOptions = { fleet: BrowserFleet; limitBytes: number; intervalMs: number; log: Logger };

/**
 * Keeps each instance's folders (profile, caches, downloads, uploads) under the operator's limit:
 * every few seconds it measures each live instance, and one past the limit is ended with the
 * documented close code (4413), so no tenant fills the host's disk. The bound is the limit plus
 * what an instance can write between two checks.
 */
export class DiskGuard {
  readonly #opts: DiskGuardOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(opts: DiskGuardOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.check(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Measure every live instance now (one pass at a time). */
  check(): Promise<void> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #pass(): Promise<void> {
    for (const instance of this.#opts.fleet.live()) {
      const used = await diskBytes(instance.browser.folders.root, this.#opts.limitBytes);
      if (used <= this.#opts.limitBytes) continue;
      this.#opts.log.warn(
        { browserId: instance.id, keyId: instance.keyId, usedBytes: used, limitBytes: this.#opts.limitBytes },
        'instance over its disk limit; ending it',
      );
      void this.#opts.fleet.end(instance.id, 'diskLimit');
    }
  }
}
