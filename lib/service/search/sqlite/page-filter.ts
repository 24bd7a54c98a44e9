/**
 * The pages a list of definitions holds any definition of, as a coarse bitmap (decision 0154): one
 * bit for each run of 2^shift page ids, set when the list holds a page among them. Whether a
 * definition of page p may be in the list is one read of a small array, where looking for it
 * (sorted.ts seek) reads a few places of a long one; and a walk's pages come in ascending order, so
 * its reads go along the bitmap as its look-ups go along the list. No false "no": a page the list
 * holds always passes. A page it does not hold passes when one of its run's is held: for pages
 * spread over the ids, about one time in BITS_PER_PAGE.
 *
 * A question's definitions are looked for in the lists of its common concepts
 * (stored-descriptions.ts), and at 10⁶ pages 84 % of those look-ups are for a page the list holds
 * no definition of.
 */
export type PageFilter = { readonly bits: Uint32Array; readonly shift: number };

/** At least this many bits for each page the list holds, unless a bit a page takes fewer. */
const BITS_PER_PAGE = 16;
/** A list shorter than this is looked in without a filter: it is read from the cache in a few steps. */
export const FILTER_FROM = 256;

/** The filter of the pages of `ids` (ascending definitions, `slots` a page: a definition's page is
 * its id over `slots`, rounded down), or null for a list shorter than FILTER_FROM. */
export function pageFilter(ids: Float64Array, slots: number): PageFilter | null {
  if (ids.length < FILTER_FROM) return null;
  let pages = 0;
  for (let i = 0, last = -1; i < ids.length; i++) {
    const page = Math.floor((ids[i] as number) / slots);
    if (page !== last) pages++;
    last = page;
  }
  const span = Math.floor((ids[ids.length - 1] as number) / slots) + 1;
  let shift = 0;
  while (span / 2 ** (shift + 1) >= pages * BITS_PER_PAGE) shift++;
  const bits = new Uint32Array(Math.ceil(span / 2 ** shift / 32));
  for (let i = 0; i < ids.length; i++) {
    const b = Math.floor((ids[i] as number) / slots) >>> shift;
    bits[b >>> 5] = ((bits[b >>> 5] as number) | (1 << (b & 31))) >>> 0;
  }
  return { bits, shift };
}

/** Whether the list may hold a definition of page `page`: false only when it holds none. */
export function mayHold(f: PageFilter, page: number): boolean {
  const b = page >>> f.shift;
  // Past the bitmap's end (ids are below 2³¹ pages): past the list's last page.
  return (((f.bits[b >>> 5] ?? 0) >>> (b & 31)) & 1) === 1;
}
