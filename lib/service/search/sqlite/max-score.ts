import { seek } from '../sorted.ts';
import type { AllowedPages, Ranked } from './first-stage.ts';
import { placeIn, type PageBits } from './page-bits.ts';

/**
 * The first stage's top k without scoring every posting (decisions 0084, 0128): MaxScore (Turtle
 * and Flood, 1995), document at a time, as Lucene and PISA run it.
 *
 * A page's score is the sum over the query's terms of `impact()`, which a list holds for each of
 * its postings (postings.ts works it out once, as it reads the list); each term's list has a
 * bound, the highest impact of any of its postings. The lists are walked side by side, page by page in the
 * order of ids, and each page is scored whole, so θ, the k-th best score so far, is a real score
 * from the first k pages on. The lists with the lowest bounds whose bounds add up to no more than θ
 * (the common words, the long ones) cannot lift a page that only they hold into the k best: they
 * stop being walked, and are only looked in (through a long list's bitmap, page-bits.ts, else by
 * galloping, sorted.ts seek) for the pages the others hold, from the highest bound down, until what is left of them cannot lift the page past θ. As θ
 * rises, more lists stop being walked.
 *
 * Exact: the same pages in the same order with the same scores as scoring every posting (topK in
 * postings.ts). Bounds are sums in another order than a score's and differ in their last bits, so
 * a page is only dropped with a margin (BOUND_MARGIN); a page's score is summed in the terms' own
 * order, as the exhaustive pass sums it. Pages come in ascending ids, so one that only equals θ
 * comes after the page that has it and stays out, as ties by id keep it out.
 */

/** What one term adds to a page's score (BM25's term weight): the one formula both passes use. */
export const impact = (idf: number, f: number, norm: number, k1: number): number => (idf * f * (k1 + 1)) / (f + norm);

/** A term's list: its pages and each one's impact(), and the highest of them; for a long list,
 * its pages as a bitmap too (page-bits.ts), where it is looked in without a search. */
export type Term = {
  docs: Uint32Array;
  impacts: Float32Array;
  bound: number;
  pages: PageBits | null;
};

/** Bounds are sums in another order than a score's: a page is pruned only when even its bound
 * grown by this fraction does not beat θ. */
const BOUND_MARGIN = 1e-9;
/** Past any page id. */
const END = 2 ** 32;

/** `scored`: the postings walked, and those found where a list was looked in. */
export type TopK = { ranked: Ranked[]; scored: number };

/** The k best pages (of those `allowed`) by the sum of their terms' impacts, best first, ties by id. */
export function maxScoreTopK(terms: readonly Term[], k: number, allowed: AllowedPages | null): TopK {
  const m = terms.length;
  if (k <= 0 || !m) return { ranked: [], scored: 0 };
  // Lowest bound first; what the first i of them add up to at most.
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => (terms[a] as Term).bound - (terms[b] as Term).bound || a - b);
  const upTo = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) upTo[i + 1] = (upTo[i] as number) + (terms[order[i] as number] as Term).bound;
  const at = new Int32Array(m);
  // Each term's impact on the page at hand, by the term's own place (0: not held).
  const impacts = new Float64Array(m);
  const best = new PageHeap(k);
  let theta = -Infinity;
  const under = (bound: number) => bound * (1 + BOUND_MARGIN) <= theta;
  // The lists order[0 .. looked) are looked in only; the others are walked.
  let looked = 0;
  let scored = 0;
  // The least page the walked lists stand at (END: they are all walked through).
  const least = () => {
    let d = END;
    for (let i = looked; i < m; i++) {
      const { docs } = terms[order[i] as number] as Term;
      const p = at[order[i] as number] as number;
      if (p < docs.length && (docs[p] as number) < d) d = docs[p] as number;
    }
    return d;
  };
  for (let d = least(); d !== END;) {
    const ok = !allowed || allowed[d];
    let sum = 0;
    // Each walked list steps past d when it holds it, and says where it stands next: one pass.
    let next = END;
    for (let i = looked; i < m; i++) {
      const j = order[i] as number;
      const t = terms[j] as Term;
      const docs = t.docs;
      let p = at[j] as number;
      if (docs[p] === d) {
        scored++;
        if (ok) {
          const x = t.impacts[p] as number;
          impacts[j] = x;
          sum += x;
        }
        at[j] = ++p;
      }
      if (p < docs.length && (docs[p] as number) < next) next = docs[p] as number;
    }
    if (ok) {
      let kept = true;
      for (let i = looked - 1; i >= 0; i--) {
        if (under(sum + (upTo[i + 1] as number))) {
          kept = false;
          break;
        }
        const j = order[i] as number;
        const t = terms[j] as Term;
        let p: number;
        if (t.pages) {
          // Looked in only from now on, never walked again: its place in the walk is not kept.
          p = placeIn(t.pages, d);
          if (p < 0) continue;
        } else {
          p = seek(t.docs, d, at[j] as number);
          at[j] = p;
          if (t.docs[p] !== d) continue;
        }
        scored++;
        const x = t.impacts[p] as number;
        impacts[j] = x;
        sum += x;
      }
      if (kept) {
        // Summed in the terms' own order, as scoring every posting sums it.
        let s = 0;
        for (let j = 0; j < m; j++) if (impacts[j]) s += impacts[j] as number;
        if (best.offer(d, s)) {
          theta = best.floor;
          const walked = looked;
          while (looked < m && under(upTo[looked + 1] as number)) looked++;
          // Fewer lists walked: the next page is the least of theirs.
          if (looked !== walked) next = least();
        }
      }
      // A loop, not fill(): a call of a builtin for a few places costs more than the places.
      for (let j = 0; j < m; j++) impacts[j] = 0;
    }
    d = next;
  }
  return { ranked: best.sorted(), scored };
}

/** The k best pages so far, worst at the root: a lower score, or the same and a higher id. */
class PageHeap {
  readonly #k: number;
  readonly #ids: number[] = [];
  readonly #scores: number[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  /** The k-th best score once there are k pages (-Infinity before). */
  get floor(): number {
    return this.#ids.length < this.#k ? -Infinity : (this.#scores[0] as number);
  }

  /** Takes page `id` (higher than any before it) with score `s` if it is among the k best; whether it did. */
  offer(id: number, s: number): boolean {
    const ids = this.#ids;
    const scores = this.#scores;
    if (ids.length < this.#k) {
      ids.push(id);
      scores.push(s);
      this.#up(ids.length - 1);
      return true;
    }
    // Equal to the worst is not better: its id is lower.
    if (!(s > (scores[0] as number))) return false;
    ids[0] = id;
    scores[0] = s;
    this.#down(0);
    return true;
  }

  /** Best first, ties by id. */
  sorted(): Ranked[] {
    return this.#ids.map((id, i) => ({ id, s: this.#scores[i] as number })).sort((a, b) => b.s - a.s || a.id - b.id);
  }

  #worse(a: number, b: number): boolean {
    const sa = this.#scores[a] as number;
    const sb = this.#scores[b] as number;
    return sa < sb || (sa === sb && (this.#ids[a] as number) > (this.#ids[b] as number));
  }

  #swap(a: number, b: number): void {
    const ids = this.#ids;
    const scores = this.#scores;
    [ids[a], ids[b]] = [ids[b] as number, ids[a] as number];
    [scores[a], scores[b]] = [scores[b] as number, scores[a] as number];
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#ids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.#worse(l, worst)) worst = l;
      if (r < n && this.#worse(r, worst)) worst = r;
      if (worst === i) return;
      this.#swap(i, worst);
      i = worst;
    }
  }
}
