/**
 * At most `size` pieces of profile work at once, service-wide (decision 0106, "Memory"): each read
 * and restore or save of a saved profile holds up to about three times the profile in memory, so
 * the number running, not the number of starts that ask, bounds what profile work can hold. Turns
 * are given first come, first served; a waiter whose signal aborts leaves the line at once.
 */
export class WorkSlots {
  readonly #size: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error('a WorkSlots needs at least one slot');
    this.#size = size;
  }

  /** Pieces of work holding a slot now. */
  get running(): number {
    return this.#running;
  }

  /** Pieces of work waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Run `work` once a slot is free, and free the slot when it settles; rejects with `signal`'s reason if it aborts first. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#take(signal);
    try {
      return await work();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  #take(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.#running < this.#size) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiting.indexOf(granted);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      const granted = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#running++;
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(granted);
    });
  }
}
