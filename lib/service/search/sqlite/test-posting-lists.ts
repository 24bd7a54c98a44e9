import type { PostingList } from './postings.ts';

/** For the tests of the list formats (packed-postings.ts, blocked-postings.ts). */

/** A list of `n` pages with gaps up to `gap`, frequencies from `freq`, and up to `places` passage
 * numbers a page (none at all when 0), from a seeded generator. */
export function list(n: number, gap: number, freq: (r: number) => number, places: number, seed: number): PostingList {
  let s = seed;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const docs = new Uint32Array(n);
  const freqs = new Float32Array(n);
  const starts = new Uint32Array(places ? n + 1 : 0);
  const all: number[] = [];
  let doc = Math.floor(next() * gap);
  for (let i = 0; i < n; i++) {
    docs[i] = doc;
    doc += 1 + Math.floor(next() * gap);
    freqs[i] = freq(next());
    if (places) {
      starts[i] = all.length;
      const here = new Set(Array.from({ length: Math.floor(next() * places) }, () => Math.floor(next() * 4096)));
      // Passage numbers as the writer keeps them: ascending, and in any order after a merge.
      const sorted = [...here].sort((a, b) => a - b);
      all.push(...(i % 7 === 3 ? sorted.reverse() : sorted));
    }
  }
  if (places) starts[n] = all.length;
  return { docs, freqs, starts, places: Uint16Array.from(all) };
}
