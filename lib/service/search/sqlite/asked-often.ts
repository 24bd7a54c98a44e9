/**
 * What a reader keeps of what it reads, by how often it is asked for, up to a limit in bytes: the
 * posting lists, whose sizes grow with the corpus (decision 0156), and the candidates' signals
 * (decision 0157).
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
 * SAMPLE_PER_ENTRY asks an entry kept, so that what was asked for long ago gives way, and as soon
 * as more keys than the limit has room for (LIMIT_BYTES_PER_COUNTED_KEY) are counted and not kept:
 * a stream of keys each asked for once (a query's every word misspelt, say) would otherwise hold
 * ten entries' worth of counts for every entry kept, none of it within the limit. A query's own
 * lists stay at hand until it ends (endQuery()), kept or not.
 *
 * A query asks a reader for a few hundred entries, most of them kept, so a kept entry is found in
 * one look-up in a map: its count and the query it was last counted in are on the entry, and each
 * count's entries are a list linked through them, which an entry leaves and joins by its links.
 */
/** Asks counted between halvings, per entry kept (TinyLFU's sample is ten times its entries). */
const SAMPLE_PER_ENTRY = 10;
/** The fewest asks between halvings. */
const MIN_SAMPLE = 1024;
/** Keys counted and not kept, at most one for each this many bytes of the limit (MIN_SAMPLE at
 * least): a key's count takes about 100 bytes, so the counts stay within a tenth of the limit. */
const LIMIT_BYTES_PER_COUNTED_KEY = 1024;

/** `asked`: its count; `query`: the query it was last counted in; `used`: when it was last used,
 * on the clock of uses; `before` and `after`: its neighbours among the entries of its count. */
type Entry<K, V> = {
  key: K;
  value: V;
  bytes: number;
  asked: number;
  query: number;
  used: number;
  before: Entry<K, V> | null;
  after: Entry<K, V> | null;
};
/** The entries asked for the same number of times, least recently used first, and their bytes. */
type Bucket<K, V> = { first: Entry<K, V> | null; last: Entry<K, V> | null; bytes: number };

/** Values are never undefined (get() answers undefined for a key it does not have). */
export class AskedOften<K, V> {
  readonly #entries = new Map<K, Entry<K, V>>();
  /** The entries by their count of asks. */
  readonly #buckets = new Map<number, Bucket<K, V>>();
  /** The asks, since the halvings, of each key asked for and not kept. */
  readonly #asked = new Map<K, number>();
  /** What the query running has been given and does not find kept. */
  readonly #query = new Map<K, V>();
  /** The keys the query running asked for and was not given (yet): each counted once. */
  readonly #missed = new Set<K>();
  /** The query running, by number. */
  #queryNumber = 0;
  #held = 0;
  #asks = 0;
  #clock = 0;
  readonly #limit: number;
  readonly #of: (key: K, value: V) => number;
  /** The most keys counted and not kept (#asked) before the counts are halved. */
  readonly #countedAtMost: number;

  /** `limit`: the bytes kept at most, `of` each entry's. */
  constructor(limit: number, of: (key: K, value: V) => number) {
    this.#limit = limit;
    this.#of = of;
    this.#countedAtMost = Math.max(MIN_SAMPLE, Math.floor(limit / LIMIT_BYTES_PER_COUNTED_KEY));
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
    const entry = this.#entries.get(key);
    if (entry) {
      if (entry.query !== this.#queryNumber) {
        // Counted, and last of the entries of its new count.
        entry.query = this.#queryNumber;
        this.#out(entry);
        entry.asked++;
        entry.used = ++this.#clock;
        this.#in(entry);
        this.#counted();
      }
      return entry.value;
    }
    const given = this.#query.get(key);
    if (given !== undefined || this.#missed.has(key)) return given;
    this.#missed.add(key);
    this.#asked.set(key, (this.#asked.get(key) ?? 0) + 1);
    this.#counted();
    return undefined;
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
    if (needed > 0 && !this.#free(needed, asked)) return false;
    const entry: Entry<K, V> = { key, value, bytes, asked, query: this.#queryNumber, used: ++this.#clock, before: null, after: null };
    this.#asked.delete(key);
    this.#entries.set(key, entry);
    this.#held += bytes;
    this.#in(entry);
    return true;
  }

  /** The value kept for `key` has grown or shrunk since it was offered (a page's signals once
   * ranking has made the index of its headings' words): its bytes are counted again, and while the
   * entries then hold more than the limit, those asked for least go, the least recently used of
   * equals first (this one among them). */
  resize(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    const bytes = this.#of(key, entry.value);
    if (bytes === entry.bytes) return;
    (this.#buckets.get(entry.asked) as Bucket<K, V>).bytes += bytes - entry.bytes;
    this.#held += bytes - entry.bytes;
    entry.bytes = bytes;
    if (this.#held > this.#limit) this.#free(this.#held - this.#limit, Infinity);
  }

  /** The query ended: what it was given is no longer held for it. */
  endQuery(): void {
    this.#query.clear();
    this.#missed.clear();
    this.#queryNumber++;
  }

  clear(): void {
    this.#entries.clear();
    this.#buckets.clear();
    this.#asked.clear();
    this.#query.clear();
    this.#missed.clear();
    this.#held = 0;
    this.#asks = 0;
  }

  /** One more ask counted: past the sample's, or with too many keys counted and not kept, every
   * count is halved. */
  #counted(): void {
    if (++this.#asks >= Math.max(MIN_SAMPLE, SAMPLE_PER_ENTRY * this.#entries.size) || this.#asked.size > this.#countedAtMost)
      this.#halve();
  }

  /** Every count halved, rounded down; a key not kept whose count falls to nothing is forgotten.
   * The entries are filed again by their counts, in the order they were used. */
  #halve(): void {
    for (const [key, count] of this.#asked) {
      if (count > 1) this.#asked.set(key, count >>> 1);
      else this.#asked.delete(key);
    }
    const byUse = [...this.#entries.values()].sort((a, b) => a.used - b.used);
    this.#buckets.clear();
    for (const entry of byUse) {
      entry.asked >>>= 1;
      entry.before = entry.after = null;
      this.#in(entry);
    }
    this.#asks >>>= 1;
  }

  /** At least `needed` bytes freed from the entries asked for fewer than `below` times, the least
   * asked for first and the least recently used of equals; when those hold too few, none go (false). */
  #free(needed: number, below: number): boolean {
    const counts = [...this.#buckets.keys()].filter((c) => c < below).sort((a, b) => a - b);
    let less = 0;
    for (const c of counts) less += (this.#buckets.get(c) as Bucket<K, V>).bytes;
    if (less < needed) return false;
    let freed = 0;
    for (const c of counts) {
      for (let e = (this.#buckets.get(c) as Bucket<K, V>).first; e && freed < needed;) {
        const next: Entry<K, V> | null = e.after;
        this.#drop(e);
        freed += e.bytes;
        e = next;
      }
      if (freed >= needed) break;
    }
    return true;
  }

  /** An entry no longer kept: its count stays with its key, and the query that was given it keeps it at hand. */
  #drop(entry: Entry<K, V>): void {
    this.#entries.delete(entry.key);
    this.#held -= entry.bytes;
    this.#out(entry);
    if (entry.asked) this.#asked.set(entry.key, entry.asked);
    if (entry.query === this.#queryNumber) this.#query.set(entry.key, entry.value);
  }

  /** Files an entry last among the entries of its count. */
  #in(entry: Entry<K, V>): void {
    let bucket = this.#buckets.get(entry.asked);
    if (!bucket) this.#buckets.set(entry.asked, (bucket = { first: null, last: null, bytes: 0 }));
    entry.before = bucket.last;
    entry.after = null;
    if (bucket.last) bucket.last.after = entry;
    else bucket.first = entry;
    bucket.last = entry;
    bucket.bytes += entry.bytes;
  }

  #out(entry: Entry<K, V>): void {
    const bucket = this.#buckets.get(entry.asked) as Bucket<K, V>;
    if (entry.before) entry.before.after = entry.after;
    else bucket.first = entry.after;
    if (entry.after) entry.after.before = entry.before;
    else bucket.last = entry.before;
    entry.before = entry.after = null;
    bucket.bytes -= entry.bytes;
    if (!bucket.first) this.#buckets.delete(entry.asked);
  }
}
