import type { AllowedPages, Ranked } from './first-stage.ts';
import type { TermList } from './term-list.ts';

/**
 * The first stage's top k without scoring every posting (decision 0084): MaxScore (Turtle and Flood,
 * 1995), term at a time, as its "continue" strategy runs it, with block bounds (decision 0089).
 *
 * A page's score is the sum over the query's terms of `impact()`; each term's list has a bound, the
 * highest impact of any of its postings. The lists are taken highest bound first (the rare words),
 * every posting added into an accumulator per page. Once the k-th best of those partial sums (θ, a
 * lower bound of the k-th best score) is more than the bounds of the lists left add up to, a page
 * not yet seen cannot reach the k best, and the lists left (the common words, the long ones) are no
 * longer walked for new pages: they are only looked up (one block unpacked a page, or a walk that
 * adds only theirs where that costs less) for the pages seen so far whose partial sum plus what the
 * lists left could add still reaches θ, and fewer of those stay after each list.
 *
 * Block bounds (blocked-postings.ts) tighten this twice. While a list is walked, a block whose
 * bound and the bounds of the lists after it add up to less than θ is left out: a page first met
 * there cannot reach the k best (block-max), and the pages seen before it are looked up there
 * afterwards, as in a list not walked. And what a list left could add to a page seen is bounded by
 * the block that would hold the page, not only by the list's bound, so that most pages are
 * dropped before a block of theirs is unpacked.
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
  list: TermList;
  idf: number;
  /** The highest impact of any posting of the list. */
  bound: number;
  /** The highest impact in each of its blocks (TermList.blockBounds), or null. */
  blocks: Float64Array | null;
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
  let seen = new Uint32Array(256);
  let count = 0;
  let scratch = new Float64Array(0);
  /** The k-th best partial sum of the pages seen (-Infinity while fewer than k). */
  const kth = (): number => {
    if (count < k) return -Infinity;
    if (scratch.length < count) scratch = new Float64Array(count * 2);
    for (let i = 0; i < count; i++) scratch[i] = acc[seen[i] as number] as number;
    return kthLargest(scratch, count, k);
  };
  try {
    let j = 0;
    // The best partial sum: the k-th is worked out only once the lists left add up to less.
    let top = 0;
    /** Per list, the blocks its walk left out (1), or null when it walked them all. */
    const skipped: (Uint8Array | null)[] = Array.from({ length: m }, () => null);
    /** Adds the entries `from` to `to` of a list walked: every page allowed, seen or not. */
    const walk = (docs: Uint32Array, freqs: Float32Array, idf: number, from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const d = docs[i] as number;
        if (allowed && !allowed[d]) continue;
        const before = acc[d] as number;
        if (before === 0) {
          if (count === seen.length) {
            const more = new Uint32Array(2 * count);
            more.set(seen);
            seen = more;
          }
          seen[count++] = d;
        }
        const s = before + impact(idf, freqs[i] as number, norm[d] as number, k1);
        acc[d] = s;
        if (s > top) top = s;
      }
      scored += to - from;
    };
    // Walk the lists while a page not seen yet could still be among the k best. A page first
    // met in a block whose bound and the lists after it add up to less than θ cannot be among
    // them either, so such a block is left out (block-max); the pages seen before it are looked
    // up in it afterwards, as in a list not walked.
    // θ, and whether it is of the pages seen now (the break below works it out).
    let theta = -Infinity;
    let thetaNow = false;
    for (; j < m; j++) {
      const t = terms[order[j] as number] as Term;
      const { list, idf, blocks } = t;
      const after = left[j] as number;
      // θ is at most the best partial sum, so no block can be left out unless its lowest bound and
      // the lists after it add up to less than that: only then is θ worked out.
      let least = Infinity;
      if (blocks && j > 0) for (let b = 0; b < blocks.length; b++) least = Math.min(least, blocks[b] as number);
      if ((least + after) * (1 + BOUND_MARGIN) < top && !thetaNow) theta = kth();
      if ((least + after) * (1 + BOUND_MARGIN) < theta) {
        const out = new Uint8Array((blocks as Float64Array).length);
        for (let b = 0; b < out.length; b++) {
          if ((((blocks as Float64Array)[b] as number) + after) * (1 + BOUND_MARGIN) < theta) {
            out[b] = 1;
            continue;
          }
          const { docs, freqs } = list.block(b);
          walk(docs, freqs, idf, b * list.blockSize, Math.min(list.df, (b + 1) * list.blockSize));
        }
        skipped[j] = out;
      } else {
        const { docs, freqs } = list.all();
        walk(docs, freqs, idf, 0, docs.length);
      }
      thetaNow = false;
      const unseen = after * (1 + BOUND_MARGIN);
      if (j + 1 < m && unseen < top) {
        theta = kth();
        thetaNow = true;
        if (unseen < theta) {
          j++;
          break;
        }
      }
    }
    // The lists with pages to look up: those a walk left blocks of, and those not walked.
    const pending: number[] = [];
    for (let l = 0; l < m; l++) if (l >= j || skipped[l]) pending.push(l);
    // Look them up for the pages that can still reach the k best: each page in the one block that
    // would hold it (a binary search), or, where that would cost more, a walk of the blocks owed
    // that adds only to the pages kept. What a list could still add to a page is the bound of that
    // block (0 where its walk took the block or no block would hold it; the list's bound for a list
    // without blocks), and what the lists after it could, their bounds.
    const owes = new Float64Array(count);
    const blockOf = new Int32Array(count);
    for (let x = 0; x < pending.length; x++) {
      const l = pending[x] as number;
      const term = terms[order[l] as number] as Term;
      const { list, idf, blocks } = term;
      const out = skipped[l];
      const theta = kth();
      let after = 0;
      for (let y = x + 1; y < pending.length; y++) after += (terms[order[pending[y] as number] as number] as Term).bound;
      const reach = (term.bound + after) * (1 + BOUND_MARGIN);
      // The pages kept, moved down in place, with what this list could add to each.
      let kept = 0;
      let asked = 0;
      for (let i = 0; i < count; i++) {
        const d = seen[i] as number;
        const sum = acc[d] as number;
        if ((sum + reach) * (1 + BOUND_MARGIN) < theta) {
          acc[d] = 0;
          continue;
        }
        // The block, looked up where it may drop the page before a block of the list is unpacked,
        // or must (a list walked in part owes only its blocks left out).
        let owe = term.bound;
        let b = 0;
        if (blocks && (out || !list.unpacked)) {
          b = list.blockOf(d);
          owe = b >= 0 && (!out || out[b]) ? (blocks[b] as number) : 0;
        } else b = -2;
        if ((sum + (owe + after) * (1 + BOUND_MARGIN)) * (1 + BOUND_MARGIN) < theta) {
          acc[d] = 0;
          continue;
        }
        seen[kept] = d;
        owes[kept] = owe;
        blockOf[kept] = b;
        if (owe > 0) asked++;
        kept++;
      }
      count = kept;
      if (list.cheapLookups(asked))
        for (let i = 0; i < kept; i++) {
          if ((owes[i] as number) <= 0) continue;
          const d = seen[i] as number;
          const b = blockOf[i] as number;
          const p = b === -2 ? list.find(d) : list.findIn(b, d);
          if (p < 0) continue;
          acc[d] = (acc[d] as number) + impact(idf, list.freq(p), norm[d] as number, k1);
          scored++;
        }
      else
        for (let b = 0; b * list.blockSize < list.df; b++) {
          if (out && !out[b]) continue;
          const { docs, freqs } = list.block(b);
          for (let i = b * list.blockSize; i < Math.min(list.df, (b + 1) * list.blockSize); i++) {
            const d = docs[i] as number;
            // Only the pages kept have a sum (a page not allowed never has one).
            if (acc[d] === 0) continue;
            acc[d] = (acc[d] as number) + impact(idf, freqs[i] as number, norm[d] as number, k1);
            scored++;
          }
        }
    }
    // The pages that may be among the k best, their scores summed in the terms' own order.
    theta = kth();
    const near: Ranked[] = [];
    for (const d of seen.subarray(0, count)) {
      if ((acc[d] as number) < theta * (1 - BOUND_MARGIN)) continue;
      let s = 0;
      for (const term of terms) {
        const at = term.list.find(d);
        if (at >= 0) s += impact(term.idf, term.list.freq(at), norm[d] as number, k1);
      }
      near.push({ id: d, s });
    }
    near.sort((a, b) => b.s - a.s || a.id - b.id);
    return { ranked: near.slice(0, k), scored };
  } finally {
    for (let i = 0; i < count; i++) acc[seen[i] as number] = 0;
  }
}
