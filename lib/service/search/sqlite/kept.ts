/**
 * What an index reader keeps in memory between queries (a page's parsed signals, the pages defining
 * a head, …): entries by key whose least recently used go first once there are more than the limit.
 * It is trimmed only between queries (trim()), never while one runs, so a query can read what it
 * asked for from here without holding on to it.
 *
 * Dropping everything at once past a limit, as the reader did before, made a stream of varied
 * queries pay the cold cost again every time the limit was crossed (once per pass over the
 * benchmark's 2,085 queries); dropping the least used keeps the ones a stream repeats. A use is one
 * number written on the entry (a query uses about a thousand); the order is worked out only when
 * a trim is due.
 */
export class Kept<K, V> {
  readonly #entries = new Map<K, { value: V; used: number }>();
  readonly #limit: number;
  #clock = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The entry of `key`, not marked as used (use() marks it). */
  get(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** The entry of `key`, marked as just used. */
  use(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    entry.used = ++this.#clock;
    return entry.value;
  }

  /** A new entry counts as just used. */
  set(key: K, value: V): void {
    this.#entries.set(key, { value, used: ++this.#clock });
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Past the limit, the least recently used entries go, down to three quarters of it, so that
   * trims are rare. */
  trim(): void {
    if (this.#entries.size <= this.#limit) return;
    const keep = Math.floor((this.#limit * 3) / 4);
    const used = Float64Array.from(this.#entries.values(), (e) => e.used).sort();
    // Every entry used before the keep-th most recent goes (uses are distinct, so exactly down to `keep`).
    const oldest = keep > 0 ? (used[used.length - keep] as number) : Infinity;
    for (const [key, entry] of this.#entries) if (entry.used < oldest) this.#entries.delete(key);
  }
}
