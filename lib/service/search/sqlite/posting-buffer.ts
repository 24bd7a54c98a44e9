import { grown } from '../typed-arrays.ts';
import type { PostingList } from './postings.ts';

/**
 * Terms numbered in the order first met, found by their text within a longer string: a page's
 * terms come as one space-separated string (page-build.ts), and a term met before is found without
 * a string made for it. An open-addressing table over FNV-1a hashes, at most half full. A Map of
 * the split terms took nearly twice the time (decision 0117): a string made for every entry, hashed, then
 * looked up among a million.
 */
class TermNumbers {
  #slots = new Int32Array(1 << 16).fill(-1);
  #hashes = new Int32Array(1 << 15);
  /** The terms by number. */
  readonly terms: string[] = [];

  /** The number of the term `text[from, to)`, a new one if it is not known. */
  of(text: string, from: number, to: number): number {
    let h = 0x811c9dc5 | 0;
    for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const mask = this.#slots.length - 1;
    let s = h & mask;
    for (let t = this.#slots[s] as number; t >= 0; t = this.#slots[s] as number) {
      if (this.#hashes[t] === h) {
        const term = this.terms[t] as string;
        if (term.length === to - from && text.startsWith(term, from)) return t;
      }
      s = (s + 1) & mask;
    }
    const t = this.terms.length;
    this.terms.push(text.slice(from, to));
    if (t === this.#hashes.length) this.#hashes = grown(this.#hashes, 2 * t);
    this.#hashes[t] = h;
    this.#slots[s] = t;
    if (2 * this.terms.length > this.#slots.length) this.#rehash(2 * this.#slots.length);
    return t;
  }

  /** Forgets every term; the table keeps its size, as the next run of a build fills it as far. */
  clear(): void {
    this.#slots.fill(-1);
    this.terms.length = 0;
  }

  #rehash(size: number): void {
    const slots = new Int32Array(size).fill(-1);
    const mask = size - 1;
    for (let t = 0; t < this.terms.length; t++) {
      let s = (this.#hashes[t] as number) & mask;
      while ((slots[s] as number) >= 0) s = (s + 1) & mask;
      slots[s] = t;
    }
    this.#slots = slots;
  }
}

/**
 * New postings entries (a term in a page: its weighted frequency there and the passages it occurs
 * in) as the postings writer meets them, page after page, in flat typed arrays: about 18 bytes an
 * entry and no object per entry or per term's list, so filling the buffer leaves next to nothing for
 * the garbage collector. drain() hands them out as one posting list a term, in term order.
 */
export class PostingBuffer {
  /** Each term's number, in the order they came. */
  readonly #numbers = new TermNumbers();
  #term = new Uint32Array(1024);
  #doc = new Uint32Array(1024);
  #freq = new Float32Array(1024);
  /** Where each entry's passage numbers start in #places (the next entry's start ends them). */
  #start = new Uint32Array(1025);
  #places = new Uint16Array(4096);
  #n = 0;
  #p = 0;

  /** Entries held. */
  get size(): number {
    return this.#n;
  }

  /** Adds an entry; pages come in ascending id order, each once. */
  add(term: string, doc: number, freq: number, places: ArrayLike<number> | null): void {
    const p = places?.length ?? 0;
    this.#reserve(this.#n + 1, this.#p + p);
    this.#term[this.#n] = this.#numbers.of(term, 0, term.length);
    this.#doc[this.#n] = doc;
    this.#freq[this.#n] = freq;
    if (places) this.#places.set(places, this.#p);
    this.#p += p;
    this.#start[++this.#n] = this.#p;
  }

  /** Adds the entries of page `doc`, whose terms are `names` (space-separated, each once), each with
   * its frequency and its placeCounts[k] passage numbers of `places` (page-build.ts PageTerms). */
  addPage(doc: number, names: string, freqs: ArrayLike<number>, placeCounts: ArrayLike<number>, places: Uint16Array): void {
    if (names === '') return;
    this.#reserve(this.#n + placeCounts.length, this.#p + places.length);
    this.#places.set(places, this.#p);
    for (let k = 0, from = 0; from <= names.length; k++) {
      let to = names.indexOf(' ', from);
      if (to < 0) to = names.length;
      this.#term[this.#n] = this.#numbers.of(names, from, to);
      this.#doc[this.#n] = doc;
      this.#freq[this.#n] = freqs[k] as number;
      this.#p += placeCounts[k] as number;
      this.#start[++this.#n] = this.#p;
      from = to + 1;
    }
  }

  #reserve(n: number, p: number): void {
    if (n > this.#term.length) {
      const size = Math.max(n, 2 * this.#term.length);
      this.#term = grown(this.#term, size);
      this.#doc = grown(this.#doc, size);
      this.#freq = grown(this.#freq, size);
      this.#start = grown(this.#start, size + 1);
    }
    if (p > this.#places.length) this.#places = grown(this.#places, Math.max(p, 2 * this.#places.length));
  }

  /** Every term with its entries, in term order, the entries in the order they came; then the
   * buffer is empty. */
  *drain(): Generator<[term: string, entries: PostingList]> {
    const terms = this.#numbers.terms;
    const n = this.#n;
    // The entries by term (a counting sort, stable: each term's entries stay in page order).
    const first = new Uint32Array(terms.length + 1);
    for (let i = 0; i < n; i++) (first[(this.#term[i] as number) + 1] as number)++;
    for (let t = 0; t < terms.length; t++) first[t + 1] = (first[t + 1] as number) + (first[t] as number);
    const order = new Uint32Array(n);
    const next = first.slice(0, terms.length);
    for (let i = 0; i < n; i++) order[(next[this.#term[i] as number] as number)++] = i;
    const byName = terms.map((term, t) => ({ term, t })).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    for (const { term, t } of byName) yield [term, this.#list(order.subarray(first[t], first[t + 1]))];
    this.clear();
  }

  clear(): void {
    this.#numbers.clear();
    this.#n = 0;
    this.#p = 0;
  }

  /** The posting list of the entries `at`. */
  #list(at: Uint32Array): PostingList {
    const docs = new Uint32Array(at.length);
    const freqs = new Float32Array(at.length);
    let p = 0;
    for (let k = 0; k < at.length; k++) {
      const i = at[k] as number;
      docs[k] = this.#doc[i] as number;
      freqs[k] = this.#freq[i] as number;
      p += (this.#start[i + 1] as number) - (this.#start[i] as number);
    }
    const starts = new Uint32Array(p ? at.length + 1 : 0);
    const places = new Uint16Array(p);
    if (p) {
      for (let k = 0, q = 0; k < at.length; k++) {
        const i = at[k] as number;
        starts[k] = q;
        places.set(this.#places.subarray(this.#start[i], this.#start[i + 1]), q);
        q += (this.#start[i + 1] as number) - (this.#start[i] as number);
      }
      starts[at.length] = p;
    }
    return { docs, freqs, starts, places };
  }
}
