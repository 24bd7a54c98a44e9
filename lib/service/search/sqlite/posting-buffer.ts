import { StringNumbers } from '../string-numbers.ts';
import { grown } from '../typed-arrays.ts';
import { postingsLayout } from './postings.ts';

/**
 * New postings entries (a term in a page: its weighted frequency there and the passages it occurs
 * in) as the postings writer meets them, page after page, in flat typed arrays: about 18 bytes an
 * entry and no object per entry or per term's list, so filling the buffer leaves next to nothing for
 * the garbage collector. drain() hands them out as one posting list a term, in term order.
 */
export class PostingBuffer {
  /** Each term's number, in the order they came. */
  readonly #numbers = new StringNumbers();
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
    this.#term[this.#n] = this.#numbers.of(term);
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

  /** Every term with its entries, in term order (`termOrder`), the entries in the order they
   * came, each term's as one blob in the format of postings.ts (encodePostings) written straight
   * from the buffer; then the buffer is empty. Each run the postings writer adds is in that order,
   * so that flush() merges them as they stand (posting-runs.ts) instead of having SQLite sort them
   * all. */
  *drain(): Generator<[term: string, encoded: Uint8Array]> {
    const numbers = this.#numbers;
    const terms = numbers.strings;
    const n = this.#n;
    // The entries by term (a counting sort, stable: each term's entries stay in page order).
    const first = new Uint32Array(terms.length + 1);
    for (let i = 0; i < n; i++) (first[(this.#term[i] as number) + 1] as number)++;
    for (let t = 0; t < terms.length; t++) first[t + 1] = (first[t + 1] as number) + (first[t] as number);
    const order = new Uint32Array(n);
    const next = first.slice(0, terms.length);
    for (let i = 0; i < n; i++) order[(next[this.#term[i] as number] as number)++] = i;
    // The names in the engine's own order of strings, which is termOrder's (by UTF-16 code units),
    // and each one's number found again: sorted with no comparator to call, the names take half
    // the time (decision 0143).
    for (const term of terms.slice().sort()) {
      const t = numbers.find(term);
      yield [term, this.#encoded(order, first[t] as number, first[t + 1] as number)];
    }
    this.clear();
  }

  /** Whether `term` has entries here. */
  has(term: string): boolean {
    return this.#numbers.find(term) >= 0;
  }

  clear(): void {
    this.#numbers.clear();
    this.#n = 0;
    this.#p = 0;
  }

  /** The entries `order[from, to)` as encodePostings would write their list (postingsLayout): two
   * uint32 (n, p), the pages, the frequencies (float32, written by their bits), and when p > 0
   * where each page's passage numbers start and the passage numbers (uint16). One buffer, two
   * views of it, and no list of typed arrays made and copied on the way (decision 0143). */
  #encoded(order: Uint32Array, from: number, to: number): Uint8Array {
    const n = to - from;
    const start = this.#start;
    let p = 0;
    for (let k = from; k < to; k++) {
      const i = order[k] as number;
      p += (start[i + 1] as number) - (start[i] as number);
    }
    const at = postingsLayout(n, p);
    const buffer = new ArrayBuffer(at.bytes);
    const words = new Uint32Array(buffer, 0, at.places / 4);
    words[0] = n;
    words[1] = p;
    const bits = FLOAT_BITS;
    for (let k = from, doc = 2, freq = at.freqs / 4; k < to; k++, doc++, freq++) {
      const i = order[k] as number;
      words[doc] = this.#doc[i] as number;
      bits.float[0] = this.#freq[i] as number;
      words[freq] = bits.word[0] as number;
    }
    if (p) {
      const places = new Uint16Array(buffer, at.places, p);
      let q = 0;
      for (let k = from, w = at.starts / 4; k < to; k++, w++) {
        const i = order[k] as number;
        words[w] = q;
        for (let j = start[i] as number, end = start[i + 1] as number; j < end; j++) places[q++] = this.#places[j] as number;
      }
      words[at.starts / 4 + n] = p;
    }
    return new Uint8Array(buffer);
  }
}

/** A float32 and its bits, one buffer seen both ways. */
const FLOAT_BITS = (() => {
  const buffer = new ArrayBuffer(4);
  return { float: new Float32Array(buffer), word: new Uint32Array(buffer) };
})();

/** The order of terms in the postings writer's runs: by UTF-16 code units, JavaScript's own
 * comparison. (SQLite's, by UTF-8 bytes, differs only where a character past U+FFFF meets one from
 * U+E000 on; the runs only need one order that every run and their merge share.) */
export function termOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
