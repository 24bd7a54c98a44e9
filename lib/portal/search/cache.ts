/**
 * The portal's cache of search answers (decision 0040): at most `entries` answers, each for
 * `ttlMs`, least recently used out first; concurrent loads of one key share one call. A failed
 * load is not remembered, and every waiter of that load gets its error.
 */
export type Clock = () => number;

export type CacheOptions = { entries: number; ttlMs: number; now?: Clock };

/** How an answer was obtained: `cached` when no upstream call was made for this request. */
export type Loaded<V> = { value: V; cached: boolean; storedAt: number };

type Entry<V> = { value: V; storedAt: number };

export class AnswerCache<V> {
  readonly #entries: number;
  readonly #ttlMs: number;
  readonly #now: Clock;
  readonly #map = new Map<string, Entry<V>>();
  readonly #inFlight = new Map<string, Promise<Loaded<V>>>();
  #loads = 0;

  constructor(opts: CacheOptions) {
    this.#entries = Math.max(0, Math.floor(opts.entries));
    this.#ttlMs = opts.ttlMs;
    this.#now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.#map.size;
  }

  /** How many loader calls were started (cache misses that were not joined to another). */
  get loads(): number {
    return this.#loads;
  }

  /** A fresh answer, marked most recently used; expired ones are dropped on sight. */
  get(key: string): Entry<V> | undefined {
    const e = this.#map.get(key);
    if (!e) return undefined;
    if (this.#now() - e.storedAt >= this.#ttlMs) {
      this.#map.delete(key);
      return undefined;
    }
    this.#map.delete(key);
    this.#map.set(key, e);
    return e;
  }

  set(key: string, value: V): void {
    if (this.#entries === 0) return;
    this.#map.delete(key);
    while (this.#map.size >= this.#entries) this.#map.delete(this.#map.keys().next().value as string);
    this.#map.set(key, { value, storedAt: this.#now() });
  }

  /**
   * The cached answer for `key`, else the one a concurrent load of the same key is fetching,
   * else a new load. `keep` decides whether a loaded value is stored (an answer that depends on
   * a passing state, such as an empty index, may be served without being remembered).
   */
  async load(key: string, loader: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<Loaded<V>> {
    const hit = this.get(key);
    if (hit) return { value: hit.value, cached: true, storedAt: hit.storedAt };
    const pending = this.#inFlight.get(key);
    if (pending) return pending.then((l) => ({ ...l, cached: true }));
    this.#loads++;
    const run = (async () => {
      try {
        const value = await loader();
        if (keep(value)) this.set(key, value);
        return { value, cached: false, storedAt: this.#now() };
      } finally {
        this.#inFlight.delete(key);
      }
    })();
    this.#inFlight.set(key, run);
    return run;
  }

  clear(): void {
    this.#map.clear();
  }
}
