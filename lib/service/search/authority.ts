import { grown } from './typed-arrays.ts';

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
 * Links between pages numbered 0 … n − 1, added a pair at a time: 8 bytes a link, where an array
 * of pairs and a set of targets a page took about 60 (a million pages hold tens of millions of
 * links).
 */
export class LinkList {
  #from = new Uint32Array(1024);
  #to = new Uint32Array(1024);
  #n = 0;

  static of(pairs: Iterable<readonly [from: number, to: number]>): LinkList {
    const list = new LinkList();
    for (const [from, to] of pairs) list.add(from, to);
    return list;
  }

  get size(): number {
    return this.#n;
  }

  add(from: number, to: number): void {
    if (this.#n === this.#from.length) {
      this.#from = grown(this.#from, 2 * this.#n);
      this.#to = grown(this.#to, 2 * this.#n);
    }
    this.#from[this.#n] = from;
    this.#to[this.#n++] = to;
  }

  /** Each page's distinct targets, itself and pages past `pages` left out: the targets of page i
   * are to[start[i]] … to[start[i + 1] − 1], in ascending order. */
  adjacency(pages: number): { start: Uint32Array; to: Uint32Array } {
    const kept = (k: number) => {
      const f = this.#from[k] as number;
      const t = this.#to[k] as number;
      return f !== t && f < pages && t < pages;
    };
    const start = new Uint32Array(pages + 1);
    for (let k = 0; k < this.#n; k++) if (kept(k)) (start[(this.#from[k] as number) + 1] as number)++;
    for (let i = 0; i < pages; i++) start[i + 1] = (start[i + 1] as number) + (start[i] as number);
    const to = new Uint32Array(start[pages] as number);
    const at = start.slice(0, pages);
    for (let k = 0; k < this.#n; k++) if (kept(k)) to[(at[this.#from[k] as number] as number)++] = this.#to[k] as number;
    // Each page's targets sorted, and a repeated link kept once, the lists moved up over the gaps.
    let w = 0;
    for (let i = 0; i < pages; i++) {
      const targets = to.subarray(start[i], start[i + 1]).sort();
      start[i] = w;
      for (let j = 0; j < targets.length; j++) if (j === 0 || targets[j] !== targets[j - 1]) to[w++] = targets[j] as number;
    }
    start[pages] = w;
    return { start, to: to.slice(0, w) };
  }
}

/**
 * PageRank of `pages` pages (numbered 0 … pages − 1) over `links`, which may repeat (a repeated
 * link counts once). A page without links shares its rank with every page.
 */
export function pageRank(pages: number, links: LinkList): Float64Array {
  const rank = new Float64Array(pages);
  if (!pages) return rank;
  const { start, to } = links.adjacency(pages);
  const out = new Uint32Array(pages);
  for (let i = 0; i < pages; i++) out[i] = (start[i + 1] as number) - (start[i] as number);

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
