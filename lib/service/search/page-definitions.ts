import { definitionHeads, headingEntry } from './definitions.ts';

/** kind: an index anchor marks the definition (index-marks.ts). */
export const DEF_INDEXED = 1;
/** kind: only an index anchor says so: a heading or an inline name it stands beside (not a
 * definition term or a table key, which are definitions anyway). */
export const DEF_BESIDE = 2;
/** kind (with both above): a word of the block an index anchor opens, not a name. */
export const DEF_PASSAGE = 4;

/** A name a page defines (definitions.ts), how surely (1 for a whole name), and how the page marks
 * it (the DEF_* bits): a row of the index's `defs`. */
export type DefinedHead = { head: string; weight: number; kind: number };

/**
 * The page's definition heads, each with where it stands: a whole name keeps its kind, a dotted
 * name's tail none; a heading or an inline name is kept only where an index anchor marks it
 * (DEF_BESIDE), and adds only that mark to a name the page defines anyway; each word of a block an
 * index anchor opens is kept as marked too (DEF_PASSAGE), unless the page defines it as a name.
 *
 * Worked out from the page alone, where its document is built (document.ts), so that the
 * thread that stores pages only stores them (decision 0126).
 */
export function pageDefinitions(terms: readonly string[], indexed: readonly string[], anchored: readonly string[]): DefinedHead[] {
  const heads = new Map<string, DefinedHead>();
  const add = (head: string, weight: number, kind: number) => {
    const h = heads.get(head);
    if (h) {
      h.weight = Math.max(h.weight, weight);
      h.kind |= kind & DEF_BESIDE && !(h.kind & DEF_BESIDE) ? kind & ~DEF_BESIDE : kind;
    } else heads.set(head, { head, weight, kind });
  };
  const marked = new Set(indexed);
  const named = new Set(terms);
  for (const term of named) {
    const kind = marked.has(term) ? DEF_INDEXED : 0;
    for (const d of definitionHeads(term)) add(d.head, d.weight, d.weight === 1 ? kind : 0);
  }
  for (const entry of marked) {
    if (named.has(entry)) continue;
    const head = definitionHeads(headingEntry(entry))[0];
    if (head) add(head.head, heads.has(head.head) ? 0 : 1, DEF_INDEXED | DEF_BESIDE);
  }
  // A word of a block an index anchor opens: marked, weaker, never over a name the page defines.
  for (const block of anchored)
    for (const word of block.split(' '))
      if (word.length > 2 && !/^\d+$/.test(word) && !heads.has(word)) add(word, 1, DEF_INDEXED | DEF_BESIDE | DEF_PASSAGE);
  return [...heads.values()];
}
