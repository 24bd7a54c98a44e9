/**
 * What a reader keeps of the lists it reads, by how often they are asked for (decision 0156): the
 * posting lists, whose sizes grow with the corpus, up to a limit in bytes.
 *
 * Kept by recency alone (least recently used out first), a stream whose lists together pass the
 * limit keeps none of them whenever a list comes back later than the limit's worth of others:
 * each one is pushed out just before it is asked again. So it was at 10⁶ pages, where the judged
 * queries read 2.2 GB of lists into 1.7 GB, and 90 % of the lists a pass read were read again.
 * Here, as in W-TinyLFU (Einziger, Friedman and Manes, 2017; Caffeine's cache), a list read
 * comes in only in place of lists asked for less often than it, the least recently used of
 * those first; asked no more often than any, it is used for the query and not kept. A
 * stream that keeps coming back to the same lists then keeps as many of them as fit, and a list
 * that comes into use is kept from its second ask, as soon as it is asked for more than the
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

type Entry<V> = { value: V; bytes: number; asked: number };

export class AskedOften<K, V> {
  /** Least recently used first. */
  readonly #entries = new Map<K, Entry<V>>();
  /** Each key's asks since the halvings; a key kept has its count on its entry too. */
  readonly #asked = new Map<K, number>();
  /** What the query running has asked for and been given, kept or not. */
  readonly #query = new Map<K, V>();
  /** The bytes the entries hold, in all and by their count of asks. */
  #held = 0;
  readonly #heldAt = new Map<number, number>();
  #asks = 0;
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
    this.#ask(key);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Most recently used last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.#query.set(key, entry.value);
    return entry.value;
  }

  /** A value read for `key` after get() did not have it: at hand until the query ends, and kept
   * if there is room, or in place of lists asked for less often. Whether it was kept. */
  offer(key: K, value: V): boolean {
    this.#query.set(key, value);
    const old = this.#entries.get(key);
    if (old) this.#drop(key, old);
    const bytes = this.#of(key, value);
    const asked = this.#asked.get(key) ?? 0;
    if (this.#held + bytes > this.#limit) {
      const needed = this.#held + bytes - this.#limit;
      // Enough bytes among the lists asked for less often, or none of them go.
      let less = 0;
      for (const [count, held] of this.#heldAt) if (count < asked) less += held;
      if (less < needed) return false;
      let freed = 0;
      for (const [k, e] of this.#entries) {
        if (e.asked >= asked) continue;
        this.#drop(k, e);
        freed += e.bytes;
        if (freed >= needed) break;
      }
    }
    this.#add(key, { value, bytes, asked });
    return true;
  }

  /** The query ended: what it was given is no longer held for it. */
  endQuery(): void {
    this.#query.clear();
  }

  clear(): void {
    this.#entries.clear();
    this.#asked.clear();
    this.#query.clear();
    this.#heldAt.clear();
    this.#held = 0;
    this.#asks = 0;
  }

  #ask(key: K): void {
    const count = (this.#asked.get(key) ?? 0) + 1;
    this.#asked.set(key, count);
    const entry = this.#entries.get(key);
    if (entry) {
      this.#count(entry, -1);
      entry.asked = count;
      this.#count(entry, 1);
    }
    if (++this.#asks >= Math.max(MIN_SAMPLE, SAMPLE_PER_ENTRY * this.#entries.size)) this.#halve();
  }

  /** Every count halved, rounded down; a key whose count falls to nothing is forgotten unless kept. */
  #halve(): void {
    for (const [key, count] of this.#asked) {
      if (count > 1) this.#asked.set(key, count >>> 1);
      else if (this.#entries.has(key)) this.#asked.set(key, 0);
      else this.#asked.delete(key);
    }
    this.#heldAt.clear();
    for (const [key, entry] of this.#entries) {
      entry.asked = this.#asked.get(key) ?? 0;
      this.#count(entry, 1);
    }
    this.#asks >>>= 1;
  }

  #add(key: K, entry: Entry<V>): void {
    this.#entries.set(key, entry);
    this.#held += entry.bytes;
    this.#count(entry, 1);
  }

  #drop(key: K, entry: Entry<V>): void {
    this.#entries.delete(key);
    this.#held -= entry.bytes;
    this.#count(entry, -1);
  }

  #count(entry: Entry<V>, sign: 1 | -1): void {
    const held = (this.#heldAt.get(entry.asked) ?? 0) + sign * entry.bytes;
    if (held) this.#heldAt.set(entry.asked, held);
    else this.#heldAt.delete(entry.asked);
  }
}
