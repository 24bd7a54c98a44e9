/**
 * Page authority from the links between pages (decision 0082): PageRank (Brin and Page, 1998) over
 * the graph of distinct links from one page to another, a page's links to itself aside. A manual's
 * built-in functions page is linked from nearly every page that mentions a built-in, which is why
 * a question about one is most often answered there; a page nobody links to is seldom the answer.
 *
 * Scores are scaled so that the average page has 1: an index of any size reads them alike.
 */
export const DAMPING = 0.85;
const ITERATIONS = 40;
/** Stop early once no page's score moves by more than this (the average page has 1). */
const EPSILON = 1e-6;

/**
 * PageRank of `pages` pages (numbered 0 … pages − 1) over `edges`, pairs of [from, to] that may
 * repeat (a repeated link counts once). A page without links shares its rank with every page.
 */
export function pageRank(pages: number, edges: Iterable<readonly [number, number]>): Float64Array {
  const rank = new Float64Array(pages);
  if (!pages) return rank;
  // Each page's distinct targets, as a compressed adjacency list.
  const targets = new Map<number, Set<number>>();
  for (const [from, to] of edges) {
    if (from === to || from < 0 || to < 0 || from >= pages || to >= pages) continue;
    let set = targets.get(from);
    if (!set) targets.set(from, (set = new Set()));
    set.add(to);
  }
  const out = new Uint32Array(pages);
  const start = new Uint32Array(pages + 1);
  for (const [from, set] of targets) out[from] = set.size;
  for (let i = 0; i < pages; i++) start[i + 1] = (start[i] as number) + (out[i] as number);
  const to = new Uint32Array(start[pages] as number);
  for (const [from, set] of targets) {
    let at = start[from] as number;
    for (const t of set) to[at++] = t;
  }

  rank.fill(1);
  const next = new Float64Array(pages);
  for (let it = 0; it < ITERATIONS; it++) {
    // Rank held by pages without links is spread evenly, as is the random jump.
    let dangling = 0;
    for (let i = 0; i < pages; i++) if (!out[i]) dangling += rank[i] as number;
    next.fill(1 - DAMPING + (DAMPING * dangling) / pages);
    for (let i = 0; i < pages; i++) {
      const n = out[i] as number;
      if (!n) continue;
      const share = (DAMPING * (rank[i] as number)) / n;
      for (let j = start[i] as number, end = start[i + 1] as number; j < end; j++)
        next[to[j] as number] = (next[to[j] as number] as number) + share;
    }
    let moved = 0;
    for (let i = 0; i < pages; i++) {
      moved = Math.max(moved, Math.abs((next[i] as number) - (rank[i] as number)));
      rank[i] = next[i] as number;
    }
    if (moved < EPSILON) break;
  }
  return rank;
}
