import { seek } from '../sorted.ts';
import type { AllowedPages, Ranked } from './first-stage.ts';
import { holds, placeIn, type PageBits } from './page-bits.ts';

/**
 * The first stage's top k without scoring every posting (decisions 0084, 0128, 0153): MaxScore
 * (Turtle and Flood, 1995) over windows of page ids, as Lucene's `MaxScoreBulkScorer` runs it.
 *
 * A page's score is the sum over the query's terms of `impact()`, which a list holds for each of
 * its postings (postings.ts works it out once, as it reads the list); each term's list has a
 * bound, the highest impact of any of its postings. θ is the k-th best score so far, a real score
 * from the first k pages on. The lists with the lowest bounds whose bounds add up to no more than θ
 * (the common words, the long ones) cannot lift a page that only they hold into the k best: they
 * are not walked, only looked in (through a long list's bitmap, page-bits.ts, else by galloping,
 * sorted.ts seek) for the pages the others hold, from the highest bound down, until what is left
 * of them cannot lift the page past θ.
 *
 * The walk goes a window of page ids at a time. In a window, each walked list adds its impacts
 * into the window's sums, a list at a time (a tight loop over two arrays); then the window's pages
 * are taken in the order of ids, each looked for in the other lists while it can still beat θ.
 * Between windows, as θ rises, more lists stop being walked. The first windows are small, so that θ
 * is known early; later ones hold about WINDOW_POSTINGS of the walked lists' postings. When one
 * list is left to walk, its pages are taken straight from it.
 *
 * Exact: the same pages in the same order with the same scores as scoring every posting (topK in
 * postings.ts). Bounds and a window's sums add in another order than a score's and differ in their
 * last bits, so a page is only dropped with a margin (BOUND_MARGIN); a page that may enter is scored
 * again in the terms' own order, as the exhaustive pass sums it. Pages come in ascending ids, so
 * one that only equals θ comes after the page that has it and stays out, as ties by id keep it out.
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
 * grown by this fraction does not beat θ, `bound * GROWN <= theta` (written out where it is
 * asked, on the walk's hottest lines). */
const BOUND_MARGIN = 1e-9;
const GROWN = 1 + BOUND_MARGIN;
/** Past any page id. */
const END = 2 ** 32;
/** About how many of the walked lists' postings a window holds once θ is known: enough that a
 * window's own work (its bitmap's words, the lists' places) is small beside its postings. */
const WINDOW_POSTINGS = 4096;
/** The first window's postings; each next window holds twice as many, up to WINDOW_POSTINGS. */
const FIRST_WINDOW_POSTINGS = 64;
/** The widest window, in page ids (a sparse walk's window). */
const MAX_WINDOW = 1 << 16;

/** A window's sums and which of its pages the walked lists hold, one bit a page: kept between
 * calls (a thread ranks one query at a time), and left zeroed by each window as it is read. */
const windowSums = new Float64Array(MAX_WINDOW);
const windowHeld = new Uint32Array(MAX_WINDOW >>> 5);

/** `scored`: the postings walked, and those found where a list was looked in. */
export type TopK = { ranked: Ranked[]; scored: number };

/** `window`: every window this many page ids wide (a power of two from 32 to MAX_WINDOW), for tests;
 * by default a window's width follows the walked lists' density. */
export type MaxScoreOptions = { window?: number };

/** The k best pages (of those `allowed`) by the sum of their terms' impacts, best first, ties by id. */
export function maxScoreTopK(terms: readonly Term[], k: number, allowed: AllowedPages | null, options: MaxScoreOptions = {}): TopK {
  const m = terms.length;
  if (k <= 0 || !m) return { ranked: [], scored: 0 };
  const fixed = options.window;
  if (fixed !== undefined && !(fixed >= 32 && fixed <= MAX_WINDOW && (fixed & (fixed - 1)) === 0))
    throw new RangeError(`a window is a power of two from 32 to ${MAX_WINDOW} page ids wide, not ${fixed}`);
  // Lowest bound first; what the first i of them add up to at most; each term's place in that order.
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => (terms[a] as Term).bound - (terms[b] as Term).bound || a - b);
  const rankOf = new Int32Array(m);
  for (let i = 0; i < m; i++) rankOf[order[i] as number] = i;
  const upTo = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) upTo[i + 1] = (upTo[i] as number) + (terms[order[i] as number] as Term).bound;
  // Each list's place: where its walk stands, or where it was last looked in.
  const at = new Int32Array(m);
  // A walked list's place at the window's start, moved on as the window's pages are scored again.
  const from = new Int32Array(m);
  // Each looked-in term's impact on the page at hand, by the term's own place (0: not held).
  const impacts = new Float64Array(m);
  const best = new PageHeap(k);
  let theta = -Infinity;
  // The lists order[0 .. looked) are looked in only; the others are walked.
  let looked = 0;
  let scored = 0;
  let budget = FIRST_WINDOW_POSTINGS;

  /**
   * Page d, with `sum` from the walked lists (order[walked ..)), if it can still beat θ: looked for
   * in the other lists from the highest bound down, and scored in the terms' own order (the walked
   * lists' impacts found again from `from`) unless `exact` already is that sum. Whether it entered.
   */
  const consider = (d: number, sum: number, walked: number, exact: boolean): boolean => {
    let kept = true;
    for (let i = walked - 1; i >= 0; i--) {
      if ((sum + (upTo[i + 1] as number)) * GROWN <= theta) {
        kept = false;
        break;
      }
      const j = order[i] as number;
      const t = terms[j] as Term;
      let p: number;
      if (t.pages) {
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
    let entered = false;
    if (kept) {
      let s = 0;
      if (exact) s = sum;
      else
        for (let j = 0; j < m; j++) {
          let x = impacts[j] as number;
          if ((rankOf[j] as number) >= walked) {
            const t = terms[j] as Term;
            const p = seek(t.docs, d, from[j] as number);
            from[j] = p;
            x = t.docs[p] === d ? (t.impacts[p] as number) : 0;
          }
          if (x) s += x;
        }
      entered = best.offer(d, s);
      if (entered) theta = best.floor;
    }
    // A loop, not fill(): a call of a builtin for a few places costs more than the places.
    for (let i = 0; i < walked; i++) impacts[order[i] as number] = 0;
    return entered;
  };

  while (looked < m) {
    // Where the walked lists stand, how many postings they have left, and their last page.
    let start = END;
    let last = 0;
    let left = 0;
    for (let i = looked; i < m; i++) {
      const { docs } = terms[order[i] as number] as Term;
      const p = at[order[i] as number] as number;
      if (p >= docs.length) continue;
      if ((docs[p] as number) < start) start = docs[p] as number;
      if ((docs[docs.length - 1] as number) > last) last = docs[docs.length - 1] as number;
      left += docs.length - p;
    }
    if (start === END) break;
    const walked = looked;
    // The most the lists looked in can add.
    const rest = upTo[walked] as number;

    if (walked === m - 1) {
      // One list left to walk: its pages straight from it, with θ and the lists looked in as they stand.
      const j = order[walked] as number;
      const { docs, impacts: xs } = terms[j] as Term;
      let p = at[j] as number;
      for (; p < docs.length; p++) {
        const d = docs[p] as number;
        if (allowed && !allowed[d]) continue;
        const x = xs[p] as number;
        if ((x + rest) * GROWN <= theta) continue;
        from[j] = p;
        const entered = consider(d, x, walked, false);
        // Nothing can beat θ any more.
        if (entered && (upTo[m] as number) * GROWN <= theta) {
          p++;
          break;
        }
      }
      scored += p - (at[j] as number);
      at[j] = p;
      break;
    }

    // The window: wide enough for about `budget` of the walked lists' postings.
    let width = fixed ?? 32;
    if (fixed === undefined) {
      const wanted = (budget * (last - start + 1)) / left;
      while (width < wanted && width < MAX_WINDOW) width *= 2;
      budget = Math.min(WINDOW_POSTINGS, budget * 2);
    }
    const end = start + width;
    // Each walked list adds its impacts, in the terms' own order: with no list looked in, a page's
    // sum is its score.
    for (let j = 0; j < m; j++) {
      if ((rankOf[j] as number) < walked) continue;
      const { docs, impacts: xs } = terms[j] as Term;
      let p = at[j] as number;
      from[j] = p;
      for (; p < docs.length; p++) {
        const d = docs[p] as number;
        if (d >= end) break;
        const s = d - start;
        windowSums[s] = (windowSums[s] as number) + (xs[p] as number);
        windowHeld[s >>> 5] = (windowHeld[s >>> 5] as number) | (1 << (s & 31));
      }
      scored += p - (from[j] as number);
      at[j] = p;
    }
    // The window's pages in the order of ids. Most are passed over at the first list looked in
    // (consider() looks there first): when it has a bitmap, a page it does not hold that the
    // other lists looked in cannot lift past θ is passed over here, without a call.
    const first = walked > 0 ? (terms[order[walked - 1] as number] as Term).pages : null;
    const others = walked > 0 ? (upTo[walked - 1] as number) : 0;
    const words = width >>> 5;
    for (let w = 0; w < words; w++) {
      let word = (windowHeld[w] as number) | 0;
      if (word === 0) continue;
      windowHeld[w] = 0;
      while (word !== 0) {
        const s = (w << 5) | (31 - Math.clz32(word & -word));
        word &= word - 1;
        const sum = windowSums[s] as number;
        windowSums[s] = 0;
        const d = start + s;
        if (allowed && !allowed[d]) continue;
        if ((sum + rest) * GROWN <= theta) continue;
        if (first !== null && (sum + others) * GROWN <= theta && !holds(first, d)) continue;
        consider(d, sum, walked, walked === 0);
      }
    }
    // As θ rose, fewer lists need walking.
    while (looked < m && (upTo[looked + 1] as number) * GROWN <= theta) looked++;
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
