/**
 * What a reader keeps of the lists it reads, by how often they are asked for (decision 0156): the
 * posting lists, whose sizes grow with the corpus, up to a limit in bytes.
 *
 * Kept by recency alone (least recently used out first), a stream whose lists together pass the
 * limit keeps none of them whenever a list comes back later than the limit's worth of others:
 * each one is pushed out just before it is asked again. So it was at 10⁶ pages, where the judged
 * queries read 2.2 GB of lists into 1.7 GB, and 90 % of the lists a pass read were read again.
 * Here, as in TinyLFU's admission (Einziger, Friedman and Manes, 2017; Caffeine's cache), a list
 * read comes in only in place of lists asked for less often than it, the least asked for first
 * and the least recently used of equals; when those hold too few bytes, it is used for the query
 * and not kept. A stream that keeps coming back to the same lists then keeps as many of them as
 * fit, and a list that comes into use is kept as soon as it is asked for more often than the
 * lists it would push out.
 *
 * Asks are counted a key once a query and halved (ones that fall to nothing forgotten) every
 * SAMPLE_PER_ENTRY asks an entry kept, so that what was asked for long ago gives way. A query's
 * own lists stay at hand until it ends (endQuery()), kept or not.
 */
/** Asks counted between halvings, per entry kept (TinyLFU's sample is ten times its entries). */
const SAMPLE_PER_ENTRY = 10;
/** The fewest asks between halvings. */
const MIN_SAMPLE = 1024;

/** `used`: when it was last used, on the clock of uses. */
type Entry<V> = { key: unknown; value: V; bytes: number; asked: number; used: number };
/** The entries asked for the same number of times, least recently used first, and their bytes. */
type Bucket<V> = { entries: Map<unknown, Entry<V>>; bytes: number };

export class AskedOften<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  /** The entries by their count of asks. */
  readonly #buckets = new Map<number, Bucket<V>>();
  /** Each key's asks since the halvings; a key kept has its count on its entry too. */
  readonly #asked = new Map<K, number>();
  /** What the query running has asked for and been given, kept or not. */
  readonly #query = new Map<K, V>();
  #held = 0;
  #asks = 0;
  #clock = 0;
  readonly #limit: number;
  readonly #of: (key: K, value: V) => number;

  /** `limit`: the bytes kept at most, `of` each entry's. */
  constructor(limit: number, of: (key: K, value: V) => number) {
    this.#limit = limit;
    this.#of = of;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes the entries kept hold. */
  get bytes(): number {
    return this.#held;
  }

  /** Whether `key` is kept (not only at hand for the query). */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value of `key` (the first time in a query, an ask of it), or undefined when it is
   * neither kept nor given to this query yet (then offer() it once read). */
  get(key: K): V | undefined {
    if (this.#query.has(key)) return this.#query.get(key);
    const entry = this.#entries.get(key);
    // Out of its bucket and back in, most recently used last (in the bucket of its new count).
    if (entry) this.#out(entry);
    const count = this.#ask(key);
    if (!entry) return undefined;
    entry.asked = count;
    entry.used = ++this.#clock;
    this.#in(entry);
    this.#query.set(key, entry.value);
    return entry.value;
  }

  /** A value read for `key` after get() did not have it: at hand until the query ends, and kept
   * if there is room, or in place of entries asked for less often. Whether it was kept. */
  offer(key: K, value: V): boolean {
    this.#query.set(key, value);
    const old = this.#entries.get(key);
    if (old) this.#drop(old);
    const bytes = this.#of(key, value);
    const asked = this.#asked.get(key) ?? 0;
    const needed = this.#held + bytes - this.#limit;
    if (needed > 0) {
      // The entries asked for least, the least recently used of each count first: enough bytes
      // among those asked for less often than this one, or none of them go.
      const counts = [...this.#buckets.keys()].filter((c) => c < asked).sort((a, b) => a - b);
      let less = 0;
      for (const c of counts) less += (this.#buckets.get(c) as Bucket<V>).bytes;
      if (less < needed) return false;
      let freed = 0;
      for (const c of counts)
        for (const e of (this.#buckets.get(c) as Bucket<V>).entries.values()) {
          if (freed >= needed) break;
          this.#drop(e);
          freed += e.bytes;
        }
    }
    const entry: Entry<V> = { key, value, bytes, asked, used: ++this.#clock };
    this.#entries.set(key, entry);
    this.#held += bytes;
    this.#in(entry);
    return true;
  }

  /** The query ended: what it was given is no longer held for it. */
  endQuery(): void {
    this.#query.clear();
  }

  clear(): void {
    this.#entries.clear();
    this.#buckets.clear();
    this.#asked.clear();
    this.#query.clear();
    this.#held = 0;
    this.#asks = 0;
  }

  /** One more ask of `key`: its count now. */
  #ask(key: K): number {
    const count = (this.#asked.get(key) ?? 0) + 1;
    this.#asked.set(key, count);
    if (++this.#asks >= Math.max(MIN_SAMPLE, SAMPLE_PER_ENTRY * this.#entries.size)) this.#halve();
    return this.#asked.get(key) ?? 0;
  }

  /** Every count halved, rounded down; a key whose count falls to nothing is forgotten unless
   * kept. The entries are filed again by their counts, in the order they were used. */
  #halve(): void {
    for (const [key, count] of this.#asked) {
      if (count > 1) this.#asked.set(key, count >>> 1);
      else if (this.#entries.has(key)) this.#asked.set(key, 0);
      else this.#asked.delete(key);
    }
    const byUse = [...this.#buckets.values()].flatMap((b) => [...b.entries.values()]);
    this.#buckets.clear();
    for (const entry of byUse.sort((a, b) => a.used - b.used)) {
      entry.asked = this.#asked.get(entry.key as K) ?? 0;
      this.#in(entry);
    }
    this.#asks >>>= 1;
  }

  #drop(entry: Entry<V>): void {
    this.#entries.delete(entry.key as K);
    this.#held -= entry.bytes;
    this.#out(entry);
  }

  /** Files an entry last in the bucket of its count. */
  #in(entry: Entry<V>): void {
    let bucket = this.#buckets.get(entry.asked);
    if (!bucket) this.#buckets.set(entry.asked, (bucket = { entries: new Map(), bytes: 0 }));
    bucket.entries.set(entry.key, entry);
    bucket.bytes += entry.bytes;
  }

  #out(entry: Entry<V>): void {
    const bucket = this.#buckets.get(entry.asked) as Bucket<V>;
    bucket.entries.delete(entry.key);
    bucket.bytes -= entry.bytes;
    if (!bucket.entries.size) this.#buckets.delete(entry.asked);
  }
}
