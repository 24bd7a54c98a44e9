import type { Logger } from 'pino';

/** A launch made ready ahead of time (chromium.ts `PreparedLaunch`), used once: started or discarded. */
export interface Prepared<B, O = undefined> {
  /** Not yet used, and still able to start (a prepared sandbox can die while it waits). */
  readonly usable: boolean;
  /** `o`: what the start needs of its caller (chromium.ts `StartHooks`). */
  start(o?: O): Promise<B>;
  discard(): Promise<void>;
}

/**
 * Launches browsers with the next launch always prepared ahead (docs/decisions/0050, "A prepared
 * sandbox"): whatever can be made before Chromium runs (an isolated instance's uid, folders,
 * cgroups and waiting sandbox) is made while nobody waits, so that a launch is Chromium's own start.
 * The next one is prepared a moment after a launch has started (`aheadDelayMs`), not while it
 * starts nor while its client is handed the browser, so that the two do not share the machine's
 * cores. A burst of launches prepares the second and later ones as they come.
 */
export class Launcher<B, O = undefined> {
  readonly #prepare: () => Promise<Prepared<B, O>>;
  readonly #log: Logger;
  readonly #aheadDelayMs: number;
  #aheadTimer: NodeJS.Timeout | null = null;
  /** The next launch: being prepared, or ready; null when none is (or its preparation failed). */
  #next: Promise<Prepared<B, O> | null> | null = null;
  #ready: Prepared<B, O> | null = null;
  #closed = false;

  constructor(prepare: () => Promise<Prepared<B, O>>, log: Logger, o: { aheadDelayMs?: number } = {}) {
    this.#prepare = prepare;
    this.#log = log;
    this.#aheadDelayMs = o.aheadDelayMs ?? 250;
  }

  /** 1 when a prepared launch waits, else 0 (for /healthz). */
  get prepared(): number {
    return this.#ready?.usable ? 1 : 0;
  }

  /** Prepare the next launch in the background, unless one is already (being) prepared. */
  prepareAhead(): void {
    if (this.#closed || this.#next) return;
    const next = this.#prepare().then(
      (prepared) => {
        if (this.#next === next) this.#ready = prepared;
        return prepared;
      },
      (err: Error) => {
        // Not fatal: the next launch prepares its own, and says why if it cannot.
        this.#log.warn({ err }, 'could not prepare the next browser launch ahead of time');
        if (this.#next === next) this.#next = null;
        return null;
      },
    );
    this.#next = next;
  }

  /** A started browser: the prepared launch if one is (being) made and still usable, else one prepared now. */
  async launch(o?: O): Promise<B> {
    if (this.#closed) throw new Error('the launcher is closed');
    const next = this.#next;
    this.#next = null;
    this.#ready = null;
    let prepared = next ? await next : null;
    if (prepared && !prepared.usable) {
      this.#log.warn('the prepared browser launch did not wait for its start; preparing another');
      await prepared.discard();
      prepared = null;
    }
    prepared ??= await this.#prepare();
    try {
      return await prepared.start(o);
    } finally {
      this.#prepareSoon();
    }
  }

  #prepareSoon(): void {
    if (this.#closed || this.#next || this.#aheadTimer) return;
    this.#aheadTimer = setTimeout(() => {
      this.#aheadTimer = null;
      this.prepareAhead();
    }, this.#aheadDelayMs);
    this.#aheadTimer.unref();
  }

  /** Stop preparing, and discard the launch that waits. Launches under way finish. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#aheadTimer) clearTimeout(this.#aheadTimer);
    const next = this.#next;
    this.#next = null;
    this.#ready = null;
    await (await next)?.discard();
  }
}
