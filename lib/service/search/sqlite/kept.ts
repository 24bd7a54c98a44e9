/**
 * What an index reader keeps in memory between queries (a page's parsed signals, the pages defining
 * a head, …): entries by key whose least recently used go first once there are more than the limit,
 * or, for entries whose size grows with the corpus (the pages of a word), once they hold more bytes
 * than theirs. It is trimmed only between queries (trim()), never while one runs, so a query can
 * read what it asked for from here without holding on to it.
 *
 * Dropping everything at once past a limit, as the reader did before, made a stream of varied
 * queries pay the cold cost again every time the limit was crossed (once per pass over the
 * benchmark's 2,085 queries); dropping the least used keeps the ones a stream repeats. A use is one
 * number written on the entry (a query uses about a thousand); the order is worked out only when
 * a trim is due.
 */
export class Kept<K, V> {
  readonly #entries = new Map<K, { value: V; used: number; bytes: number }>();
  readonly #limit: number;
  readonly #bytes: { limit: number; of: (value: V) => number } | null;
  #held = 0;
  #clock = 0;

  /** `limit`: entries at most; `bytes`: and bytes at most, each entry's `of` its value. */
  constructor(limit: number, bytes?: { limit: number; of: (value: V) => number }) {
    this.#limit = limit;
    this.#bytes = bytes ?? null;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes the entries hold (0 without a byte limit). */
  get bytes(): number {
    return this.#held;
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
    const bytes = this.#bytes?.of(value) ?? 0;
    this.#held += bytes - (this.#entries.get(key)?.bytes ?? 0);
    this.#entries.set(key, { value, used: ++this.#clock, bytes });
  }

  clear(): void {
    this.#entries.clear();
    this.#held = 0;
  }

  /** Past a limit, the least recently used entries go, down to three quarters of each limit, so
   * that trims are rare. */
  trim(): void {
    const byteLimit = this.#bytes?.limit ?? Infinity;
    if (this.#entries.size <= this.#limit && this.#held <= byteLimit) return;
    const keep = Math.floor((this.#limit * 3) / 4);
    const keepBytes = (byteLimit * 3) / 4;
    const oldestFirst = [...this.#entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key, entry] of oldestFirst) {
      if (this.#entries.size <= keep && this.#held <= keepBytes) break;
      this.#entries.delete(key);
      this.#held -= entry.bytes;
    }
  }
}
