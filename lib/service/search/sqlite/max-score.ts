import type { AllowedPages, Ranked } from './first-stage.ts';

/**
 * The first stage's top k without scoring every posting (decision 0084): MaxScore (Turtle and Flood,
 * 1995, as Lucene and Tantivy run it), document at a time over posting lists sorted by page id.
 *
 * A page's score is the sum over the query's terms of `impact()`. Each term's list has a bound, the
 * highest impact of any of its postings. With the lists ordered by bound, the lowest ones whose
 * bounds add up to no more than the k-th best score so far (θ) are non-essential: a page found in
 * none of the others cannot reach θ. Pages are taken from the essential lists only, in id order;
 * the non-essential lists are looked up for them (a galloping search forward), the highest bound
 * first, and a page is dropped as soon as what it holds plus what the lists left could add cannot
 * beat θ. As θ rises, the common words' long lists stop being walked at all.
 *
 * Exact: the same pages in the same order with the same scores as scoring every posting (topK in
 * postings.ts). Each score is summed in the terms' own order, as the exhaustive pass sums it, so it
 * is the same float to the last bit; bounds are compared with a margin (BOUND_MARGIN) so that a
 * sum in another order never prunes a page that ties or beats θ. Pages come in ascending id, so a
 * page that only ties the k-th best has a higher id and loses the tie, as in topK.
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

/** The first index at or after `from` whose page id is at least `id` (docs.length when none). */
function seek(docs: Uint32Array, from: number, id: number): number {
  let lo = from;
  let hi = from;
  let step = 1;
  while (hi < docs.length && (docs[hi] as number) < id) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > docs.length) hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((docs[mid] as number) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export type TopK = { ranked: Ranked[]; /** postings whose impact was worked out */ scored: number };

/** The k best pages (of those `allowed`) by the sum of their terms' impacts, best first, ties by id. */
export function maxScoreTopK(terms: readonly Term[], norm: Float64Array, k1: number, k: number, allowed: AllowedPages | null): TopK {
  const m = terms.length;
  if (k <= 0 || !m) return { ranked: [], scored: 0 };
  // The lists by bound, lowest first, and the sum of the bounds up to each.
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => (terms[a] as Term).bound - (terms[b] as Term).bound || a - b);
  const prefix = new Float64Array(m);
  let sum = 0;
  for (let j = 0; j < m; j++) prefix[j] = sum += (terms[order[j] as number] as Term).bound;
  const pos = new Int32Array(m);
  // Each term's impact on the page at hand, and the page it was worked out for.
  const contrib = new Float64Array(m);
  const on = new Float64Array(m).fill(-1);
  // A min-heap of the best k: the worst (lowest score, then highest id) on top.
  const heapIds: number[] = [];
  const heapScores: number[] = [];
  const worse = (i: number, j: number) =>
    (heapScores[i] as number) < (heapScores[j] as number) || (heapScores[i] === heapScores[j] && (heapIds[i] as number) > (heapIds[j] as number));
  const swap = (i: number, j: number) => {
    [heapIds[i], heapIds[j]] = [heapIds[j] as number, heapIds[i] as number];
    [heapScores[i], heapScores[j]] = [heapScores[j] as number, heapScores[i] as number];
  };
  const down = () => {
    for (let at = 0; ;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let w = at;
      if (l < heapIds.length && worse(l, w)) w = l;
      if (r < heapIds.length && worse(r, w)) w = r;
      if (w === at) return;
      swap(at, w);
      at = w;
    }
  };
  let theta = -Infinity;
  // Lists order[essential..] are walked; the ones before are only looked up.
  let essential = 0;
  let scored = 0;
  for (;;) {
    let d = Infinity;
    for (let j = essential; j < m; j++) {
      const t = order[j] as number;
      const docs = (terms[t] as Term).docs;
      const p = pos[t] as number;
      if (p < docs.length && (docs[p] as number) < d) d = docs[p] as number;
    }
    if (d === Infinity) break;
    let s = 0;
    for (let j = essential; j < m; j++) {
      const t = order[j] as number;
      const term = terms[t] as Term;
      const p = pos[t] as number;
      if (p < term.docs.length && term.docs[p] === d) {
        const x = impact(term.idf, term.freqs[p] as number, norm[d] as number, k1);
        contrib[t] = x;
        on[t] = d;
        s += x;
        pos[t] = p + 1;
        scored++;
      }
    }
    if (allowed && !allowed[d]) continue;
    let pruned = false;
    for (let j = essential - 1; j >= 0; j--) {
      if ((s + (prefix[j] as number)) * (1 + BOUND_MARGIN) <= theta) {
        pruned = true;
        break;
      }
      const t = order[j] as number;
      const term = terms[t] as Term;
      const p = seek(term.docs, pos[t] as number, d);
      pos[t] = p;
      if (p < term.docs.length && term.docs[p] === d) {
        const x = impact(term.idf, term.freqs[p] as number, norm[d] as number, k1);
        contrib[t] = x;
        on[t] = d;
        s += x;
        scored++;
      }
    }
    if (pruned) continue;
    // The score as the exhaustive pass sums it: in the terms' order.
    let score = 0;
    for (let t = 0; t < m; t++) if (on[t] === d) score += contrib[t] as number;
    if (heapIds.length < k) {
      heapIds.push(d);
      heapScores.push(score);
      for (let c = heapIds.length - 1; c > 0;) {
        const parent = (c - 1) >> 1;
        if (!worse(c, parent)) break;
        swap(c, parent);
        c = parent;
      }
    } else if (score > (heapScores[0] as number)) {
      heapIds[0] = d;
      heapScores[0] = score;
      down();
    } else continue;
    if (heapIds.length === k) {
      theta = heapScores[0] as number;
      while (essential < m && (prefix[essential] as number) * (1 + BOUND_MARGIN) <= theta) essential++;
    }
  }
  const ranked = heapIds.map((id, i) => ({ id, s: heapScores[i] as number }));
  ranked.sort((a, b) => b.s - a.s || a.id - b.id);
  return { ranked, scored };
}
