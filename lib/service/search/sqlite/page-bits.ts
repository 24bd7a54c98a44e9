import { seek } from '../sorted.ts';

/**
 * A long posting list's pages as a bitmap, one bit a page id, with the count of its pages before
 * each 32-bit word (decision 0148): whether the list holds a page, and where, in two reads of a
 * small array, where a galloping search (sorted.ts seek) reads a few places of a long one. Built for
 * a list holding at least a sixteenth of the pages, where it is no larger than half the list.
 */
export type PageBits = { bits: Uint32Array; before: Uint32Array };

/** Whether a list of `held` pages among ids below `ids` is kept with a bitmap. */
export const wantsBits = (held: number, ids: number): boolean => held * 16 >= ids;

/** The bitmap of `docs` (ascending ids, each below `ids`). */
export function pageBits(docs: Uint32Array, ids: number): PageBits {
  const words = Math.ceil(ids / 32);
  const bits = new Uint32Array(words);
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i] as number;
    bits[d >>> 5] = ((bits[d >>> 5] as number) | (1 << (d & 31))) >>> 0;
  }
  const before = new Uint32Array(words);
  for (let w = 1; w < words; w++) before[w] = (before[w - 1] as number) + popcount(bits[w - 1] as number);
  return { bits, before };
}

/** Where page `d` is in the list (its place among the list's ascending ids), or -1. */
export function placeIn(b: PageBits, d: number): number {
  const w = d >>> 5;
  const word = (b.bits[w] as number) | 0;
  if (!(word & (1 << (d & 31)))) return -1;
  return (b.before[w] as number) + popcount(word & ~(-1 << (d & 31)));
}

/** Whether the list holds page `d`. */
export const holds = (b: PageBits, d: number): boolean => (((b.bits[d >>> 5] as number) >>> (d & 31)) & 1) === 1;

/** A posting list's pages: ascending ids, each once, and for a long list the same as a bitmap. */
export type ListedPages = { docs: Uint32Array; pages: PageBits | null };

/** The pages in every one of `lists`, ascending: the shortest list's pages, each looked for in the
 * others, the shorter first, through a list's bitmap when it has one, else by galloping (seek). */
export function pagesInAll(lists: readonly ListedPages[]): Uint32Array {
  if (!lists.length) return new Uint32Array(0);
  const sorted = [...lists].sort((a, b) => a.docs.length - b.docs.length);
  const short = (sorted[0] as ListedPages).docs;
  if (sorted.length === 1) return short;
  const out = new Uint32Array(short.length);
  const at = new Int32Array(sorted.length);
  let n = 0;
  pages: for (let i = 0; i < short.length; i++) {
    const d = short[i] as number;
    for (let j = 1; j < sorted.length; j++) {
      const { docs, pages } = sorted[j] as ListedPages;
      if (pages) {
        if (!holds(pages, d)) continue pages;
        continue;
      }
      const p = seek(docs, d, at[j] as number);
      at[j] = p;
      if (p >= docs.length) break pages;
      if (docs[p] !== d) continue pages;
    }
    out[n++] = d;
  }
  return out.slice(0, n);
}

/** The bits set in a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
