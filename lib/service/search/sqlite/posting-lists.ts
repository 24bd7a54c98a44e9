import type { PostingList } from './postings.ts';

/**
 * Putting posting lists (postings.ts) together, as the postings writer does when it rewrites a
 * term: the runs a term gathered during one `finish()` joined into one list, and that list merged
 * with what the index held. Entries stay in ascending page order; a list's passage numbers are
 * kept only when some entry has any (`starts` is empty otherwise), as the blob format says.
 */

/** The list of no pages. */
export const NO_POSTINGS: PostingList = {
  docs: new Uint32Array(0),
  freqs: new Float32Array(0),
  starts: new Uint32Array(0),
  places: new Uint16Array(0),
};

/** A list filled entry by entry from other lists, into arrays sized for at most `n` entries and `p`
 * passage numbers. */
class ListBuilder {
  readonly #docs: Uint32Array;
  readonly #freqs: Float32Array;
  readonly #starts: Uint32Array;
  readonly #places: Uint16Array;
  #n = 0;
  #p = 0;

  constructor(n: number, p: number) {
    this.#docs = new Uint32Array(n);
    this.#freqs = new Float32Array(n);
    this.#starts = new Uint32Array(p ? n + 1 : 0);
    this.#places = new Uint16Array(p);
  }

  /** Appends entry `i` of `from`. */
  copy(from: PostingList, i: number): void {
    this.#docs[this.#n] = from.docs[i] as number;
    this.#freqs[this.#n] = from.freqs[i] as number;
    if (this.#starts.length) this.#starts[this.#n] = this.#p;
    if (from.starts.length) {
      const places = from.places.subarray(from.starts[i], from.starts[i + 1]);
      this.#places.set(places, this.#p);
      this.#p += places.length;
    }
    this.#n++;
  }

  list(): PostingList {
    const n = this.#n;
    if (!this.#p)
      return { docs: this.#docs.subarray(0, n), freqs: this.#freqs.subarray(0, n), starts: NO_POSTINGS.starts, places: NO_POSTINGS.places };
    this.#starts[n] = this.#p;
    return {
      docs: this.#docs.subarray(0, n),
      freqs: this.#freqs.subarray(0, n),
      starts: this.#starts.subarray(0, n + 1),
      places: this.#places.subarray(0, this.#p),
    };
  }
}

/** The entries of `lists` one after the other; each list's pages come after the previous one's. */
export function concatPostings(lists: readonly PostingList[]): PostingList {
  if (lists.length === 1) return lists[0] as PostingList;
  let n = 0;
  let p = 0;
  for (const l of lists) {
    n += l.docs.length;
    p += l.places.length;
  }
  const out = new ListBuilder(n, p);
  for (const l of lists) for (let i = 0; i < l.docs.length; i++) out.copy(l, i);
  return out.list();
}

/**
 * `old` without the pages `dropped` names, merged by page with `added`. Every page of `added`
 * must be dropped from `old` (a page rebuilt replaces its entry), so no page is in both.
 */
export function mergePostings(old: PostingList, dropped: (id: number) => boolean, added: PostingList): PostingList {
  const out = new ListBuilder(old.docs.length + added.docs.length, old.places.length + added.places.length);
  let j = 0;
  for (let i = 0; i < old.docs.length; i++) {
    const d = old.docs[i] as number;
    if (dropped(d)) continue;
    while (j < added.docs.length && (added.docs[j] as number) < d) out.copy(added, j++);
    out.copy(old, i);
  }
  while (j < added.docs.length) out.copy(added, j++);
  return out.list();
}
