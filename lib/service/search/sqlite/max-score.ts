import { indexIn } from '../sorted.ts';
import type { AllowedPages, Ranked } from './first-stage.ts';

/**
 * The first stage's top k without scoring every posting (decision 0084): MaxScore (Turtle and Flood,
 * 1995), term at a time, as its "continue" strategy runs it.
 *
 * A page's score is the sum over the query's terms of `impact()`; each term's list has a bound, the
 * highest impact of any of its postings. The lists are taken highest bound first (the rare words),
 * every posting added into an accumulator per page. Once the k-th best of those partial sums (θ, a
 * lower bound of the k-th best score) is more than the bounds of the lists left add up to, a page
 * not yet seen cannot reach the k best, and the lists left (the common words, the long ones) are no
 * longer walked for new pages: they are only looked up (a binary search a page, or a walk that adds
 * only theirs where that costs less) for the pages seen so far whose partial sum plus what the lists
 * left could add still reaches θ, and fewer of those stay after each list.
 *
 * Exact: the same pages in the same order with the same scores as scoring every posting (topK in
 * postings.ts). Sums in another order than the terms' own differ in their last bits, so pages are
 * only dropped with a margin (BOUND_MARGIN), and the few that may be among the k best get their
 * score summed again in the terms' own order, as the exhaustive pass sums it, before the k best
 * are chosen, ties by id.
 */

/** What one term adds to a page's score (BM25's term weight): the one formula both passes use. */
export const impact = (idf: number, f: number, norm: number, k1: number): number => (idf * f * (k1 + 1)) / (f + norm);

export type Term = {
  docs: Uint32Array;
  freqs: Float32Array;
  idf: number;
  /** The highest impact of any posting of the list. */
  bound: number;
};

/** Bounds are sums in another order than a score's: a page is pruned only when even its bound
 * grown by this fraction does not beat θ. */
const BOUND_MARGIN = 1e-9;

/** The highest impact of a list's postings. */
export function listBound(docs: Uint32Array, freqs: Float32Array, idf: number, norm: Float64Array, k1: number): number {
  let best = 0;
  for (let i = 0; i < docs.length; i++) {
    const x = impact(idf, freqs[i] as number, norm[docs[i] as number] as number, k1);
    if (x > best) best = x;
  }
  return best;
}

/** The k-th largest of the first `n` values (1-based k <= n), reordering them (quickselect). */
function kthLargest(values: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  const want = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) > pivot) i++;
      while ((values[j] as number) < pivot) j--;
      if (i <= j) {
        const t = values[i] as number;
        values[i] = values[j] as number;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else break;
  }
  return values[want] as number;
}

/** `scored`: the postings walked or looked up (the scores of the few pages that may be among the k
 * best, summed again in the terms' order at the end, not counted). */
export type TopK = { ranked: Ranked[]; scored: number };

/**
 * The k best pages (of those `allowed`) by the sum of their terms' impacts, best first, ties by id.
 * `acc`: scratch space of one zero per page id (given back all zeros), made when not given.
 */
export function maxScoreTopK(
  terms: readonly Term[],
  norm: Float64Array,
  k1: number,
  k: number,
  allowed: AllowedPages | null,
  acc: Float64Array = new Float64Array(norm.length),
): TopK {
  const m = terms.length;
  if (k <= 0 || !m) return { ranked: [], scored: 0 };
  // Highest bound first; what the lists after each one could add at most.
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => (terms[b] as Term).bound - (terms[a] as Term).bound || a - b);
  const left = new Float64Array(m);
  for (let j = m - 2; j >= 0; j--) left[j] = (left[j + 1] as number) + (terms[order[j + 1] as number] as Term).bound;
  let scored = 0;
  // The pages seen (those allowed), in the order first seen; those that cannot reach the k best
  // are dropped (their sums set back to zero) as the lists left are looked up.
  let seen: number[] = [];
  let scratch = new Float64Array(0);
  /** The k-th best partial sum of the pages seen (-Infinity while fewer than k). */
  const kth = (): number => {
    if (seen.length < k) return -Infinity;
    if (scratch.length < seen.length) scratch = new Float64Array(seen.length * 2);
    for (let i = 0; i < seen.length; i++) scratch[i] = acc[seen[i] as number] as number;
    return kthLargest(scratch, seen.length, k);
  };
  try {
    let j = 0;
    // The best partial sum: the k-th is worked out only once the lists left add up to less.
    let top = 0;
    // Walk the lists while a page not seen yet could still be among the k best.
    for (; j < m; j++) {
      const t = terms[order[j] as number] as Term;
      const { docs, freqs, idf } = t;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i] as number;
        if (allowed && !allowed[d]) continue;
        const before = acc[d] as number;
        if (before === 0) seen.push(d);
        const s = before + impact(idf, freqs[i] as number, norm[d] as number, k1);
        acc[d] = s;
        if (s > top) top = s;
      }
      scored += docs.length;
      const unseen = (left[j] as number) * (1 + BOUND_MARGIN);
      if (j + 1 < m && unseen < top && unseen < kth()) {
        j++;
        break;
      }
    }
    // Look the lists left up for the pages that can still reach the k best: each page by a
    // binary search, or, where that would cost more, a walk of the list that adds only theirs.
    for (; j < m; j++) {
      const theta = kth();
      const reach = (left[j - 1] as number) * (1 + BOUND_MARGIN);
      seen = seen.filter((d) => {
        if (((acc[d] as number) + reach) * (1 + BOUND_MARGIN) >= theta) return true;
        acc[d] = 0;
        return false;
      });
      const { docs, freqs, idf } = terms[order[j] as number] as Term;
      if (seen.length * Math.log2(docs.length + 1) < docs.length)
        for (const d of seen) {
          const p = indexIn(docs, d);
          if (p < 0) continue;
          acc[d] = (acc[d] as number) + impact(idf, freqs[p] as number, norm[d] as number, k1);
          scored++;
        }
      else
        for (let i = 0; i < docs.length; i++) {
          const d = docs[i] as number;
          // Only the pages kept have a sum (a page not allowed never has one).
          if (acc[d] === 0) continue;
          acc[d] = (acc[d] as number) + impact(idf, freqs[i] as number, norm[d] as number, k1);
          scored++;
        }
    }
    // The pages that may be among the k best, their scores summed in the terms' own order.
    const theta = kth();
    const near: Ranked[] = [];
    for (const d of seen) {
      if ((acc[d] as number) < theta * (1 - BOUND_MARGIN)) continue;
      let s = 0;
      for (const term of terms) {
        const at = indexIn(term.docs, d);
        if (at >= 0) s += impact(term.idf, term.freqs[at] as number, norm[d] as number, k1);
      }
      near.push({ id: d, s });
    }
    near.sort((a, b) => b.s - a.s || a.id - b.id);
    return { ranked: near.slice(0, k), scored };
  } finally {
    for (const d of seen) acc[d] = 0;
  }
}
