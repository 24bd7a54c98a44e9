import { definitionHeads } from './definitions.ts';
import { indexIn } from './sorted.ts';

/**
 * What each defined name is for (decision 0082): a question asks for what a name does, not for the
 * name (`remove trailing whitespace` for `str.rstrip`, `the length of a list` for `len`). Each
 * definition of the index is a small document of its own: the first words of its description
 * (extract.ts `described`: `Return a copy of the string with trailing characters removed …`), and
 * the words around the links that name it elsewhere in the corpus (`hasattr()` in the glossary's
 * *duck-typing*, `len()` in a tutorial's sentence about the size of a list): term associations
 * learnt from the corpus, the words people use beside the name. The definitions whose documents
 * hold most of a question, by how rare each of its words is among all definitions, say which pages
 * define the answer, even where the page as a whole ranks low for it (a long reference page holds
 * every word somewhere, and so do its neighbours).
 */
export type DescribedRow = {
  page: number;
  term: string;
  /** The index's terms of its description and of the words around the links naming it. */
  terms: readonly string[];
  /** How many links name it (namedBy()). */
  links: number;
};

/** A page's best definition for a question: how well its document holds the question, 0 to 1. */
export type DescriptionMatch = { page: number; term: string; share: number };

/** How much of a definition's score its popularity (the links naming it, log-scaled against the
 * most named definition's) decides: chosen on the even half of the natural questions. */
const NAMED_PRIOR = 0.5;
/** Words around the links naming one definition kept, at most. */
export const MAX_LINKED_WORDS = 2000;

/** What a definition's share is weighed by: its popularity, 0 to 1 (log(1 + links) over the most
 * named definition's, `most`), at NAMED_PRIOR. */
export function namedPrior(links: number, most: number): number {
  return 1 - NAMED_PRIOR + NAMED_PRIOR * (Math.log1p(links) / Math.log1p(Math.max(1, most)));
}

/** What a concept of a question is worth among `n` definitions, `held` of which hold it. */
export function conceptIdf(n: number, held: number): number {
  return Math.log(1 + (n - held + 0.5) / (held + 0.5));
}

/**
 * Each described definition's document (in the order of `described`) in the index's terms: the
 * distinct terms of its description and of the blocks the links naming it stand in (namedBy()),
 * with the number of those links. `links`: the links to the described pages; `termsOf`: the
 * index's terms of each of a vocabulary's words (the postings' tokenizer), asked once.
 */
export function definitionDocuments(
  described: readonly { page: number; term: string; words: string }[],
  links: readonly { page: number; text: string; context: string }[],
  termsOf: (words: readonly string[]) => (readonly string[])[],
): { terms: string[]; links: number }[] {
  const named = namedBy(described, links);
  const words = described.map((d, i) => [...d.words.split(' '), ...(named[i]?.words ?? [])]);
  const vocabulary = [...new Set(words.flat())];
  const lists = termsOf(vocabulary);
  const terms = new Map(vocabulary.map((w, i) => [w, lists[i] ?? []]));
  return words.map((ws, i) => ({ terms: [...new Set(ws.flatMap((w) => terms.get(w) ?? []))], links: named[i]?.links ?? 0 }));
}

/**
 * The links naming each definition: a link to the definition's page whose text is the
 * definition's name (`hasattr()`, `str.strip()`, or a dotted name's tail: `strip()` for
 * `str.strip`), their number and the words of the blocks they stand in (extract.ts linkContext,
 * one context a line). `links` are the links to the described pages; the result is by index of
 * `described`.
 */
export function namedBy(
  described: readonly { page: number; term: string }[],
  links: readonly { page: number; text: string; context: string }[],
): { links: number; words: string[] }[] {
  const byName = new Map<string, { links: number; words: string[] }>();
  // Link texts repeat (`len()`, `str`): each is read as a name once.
  const heads = new Map<string, string | undefined>();
  for (const l of links) {
    let head = heads.get(l.text);
    if (head === undefined && !heads.has(l.text)) heads.set(l.text, (head = definitionHeads(l.text)[0]?.head));
    if (!head) continue;
    const key = `${l.page} ${head}`;
    let named = byName.get(key);
    if (!named) byName.set(key, (named = { links: 0, words: [] }));
    named.links++;
    if (named.words.length < MAX_LINKED_WORDS) for (const w of l.context.split(/\s+/)) if (w) named.words.push(w);
  }
  return described.map((d) => {
    const out = { links: 0, words: [] as string[] };
    for (const h of definitionHeads(d.term)) {
      const named = byName.get(`${d.page} ${h.head}`);
      if (!named) continue;
      out.links += named.links;
      out.words.push(...named.words);
    }
    return out;
  });
}

export class Descriptions {
  readonly #pages: Int32Array;
  readonly #names: string[] = [];
  /** What each definition's share is weighed by: its popularity, 0 to 1 (log(1 + links) over the
   * most named definition's), at NAMED_PRIOR. */
  readonly #prior: Float64Array;
  /** Per term, the definitions whose documents hold it (by index, ascending). */
  readonly #holding = new Map<string, Int32Array>();
  /** Scratch space of match(), side by side for each definition (one cache line a definition): its
   * score at 2i and the number of concepts holding it at 2i + 1. */
  readonly #acc: Float64Array;
  /** Scratch space of #unionOf(): the last union that counted each definition (a concept of several
   * terms counts a definition once). */
  readonly #seen: Uint32Array;
  /** Scratch space of match(): the definitions it counted, in the order it came to them. */
  readonly #touched: Int32Array;
  /** Scratch space of #unionOf(). */
  readonly #union: Int32Array;
  #stamp = 0;
  /** Each definition's page as a slot (0 to the number of pages), and by slot, scratch space of
   * match(): the page's best share and the definition that has it (-1: none yet). */
  readonly #slots: Int32Array;
  readonly #pageShare: Float64Array;
  readonly #pageDef: Int32Array;

  constructor(rows: readonly DescribedRow[]) {
    this.#pages = new Int32Array(rows.length);
    this.#prior = new Float64Array(rows.length);
    let most = 0;
    for (const r of rows) most = Math.max(most, r.links);
    const holding = new Map<string, number[]>();
    rows.forEach((r, i) => {
      this.#pages[i] = r.page;
      this.#names.push(r.term);
      this.#prior[i] = namedPrior(r.links, most);
      for (const t of new Set(r.terms)) {
        const list = holding.get(t);
        if (list) list.push(i);
        else holding.set(t, [i]);
      }
    });
    for (const [t, list] of holding) this.#holding.set(t, Int32Array.from(list));
    this.#acc = new Float64Array(2 * rows.length);
    this.#touched = new Int32Array(rows.length);
    this.#union = new Int32Array(rows.length);
    this.#seen = new Uint32Array(rows.length);
    const slotOf = new Map<number, number>();
    this.#slots = Int32Array.from(rows, (r) => {
      let slot = slotOf.get(r.page);
      if (slot === undefined) slotOf.set(r.page, (slot = slotOf.size));
      return slot;
    });
    this.#pageShare = new Float64Array(slotOf.size);
    this.#pageDef = new Int32Array(slotOf.size).fill(-1);
  }

  get size(): number {
    return this.#names.length;
  }

  /**
   * The pages whose definitions best answer a question, each by its best definition, best first
   * (at most `limit`). `concepts`: each concept of the question as the terms any of which stand
   * for it. A concept is worth its idf among the definitions (one no definition holds, as much as
   * the rarest); a definition scores the worth of the concepts its document holds over the whole
   * question's, weighed by how often the corpus names it (NAMED_PRIOR). A definition holding one
   * concept of a question of several is no match: one word says little of what a name is for.
   */
  match(concepts: readonly (readonly string[])[], limit: number): DescriptionMatch[] {
    const n = this.#names.length;
    if (!n || !concepts.length || limit <= 0) return [];
    const acc = this.#acc;
    const need = concepts.length > 1 ? 2 : 1;
    // Each concept's lists, the most held last: where two concepts must be held, a definition
    // that only the last one holds is no match, so the last is looked up for those the others
    // found instead of walked (a common word's list is the longest by far).
    const lists = concepts
      .map((terms) => terms.map((t) => this.#holding.get(t)).filter((l) => l !== undefined))
      .map((ls) => ({ ls, size: ls.reduce((a, l) => a + l.length, 0) }))
      .sort((a, b) => a.size - b.size);
    const touched = this.#touched;
    let count = 0;
    let total = 0;
    for (let at = 0; at < lists.length; at++) {
      const ls = (lists[at] as { ls: Int32Array[] }).ls;
      const defs = this.#unionOf(ls);
      const idf = conceptIdf(n, defs.length);
      total += idf;
      if (need === 2 && at === lists.length - 1 && count < defs.length) {
        for (let k = 0; k < count; k++) {
          const i = touched[k] as number;
          if (ls.some((l) => indexIn(l, i) >= 0)) {
            acc[2 * i] = (acc[2 * i] as number) + idf;
            acc[2 * i + 1] = (acc[2 * i + 1] as number) + 1;
          }
        }
        continue;
      }
      for (let k = 0; k < defs.length; k++) {
        const i = defs[k] as number;
        const held = acc[2 * i + 1] as number;
        if (held === 0) touched[count++] = i;
        acc[2 * i] = (acc[2 * i] as number) + idf;
        acc[2 * i + 1] = held + 1;
      }
    }
    // Each page by its best definition, the first of equals (on scratch space by page slot).
    const slots = this.#slots;
    const pageShare = this.#pageShare;
    const pageDef = this.#pageDef;
    const prior = this.#prior;
    const pages: number[] = [];
    for (let k = 0; k < count; k++) {
      const i = touched[k] as number;
      const held = acc[2 * i + 1] as number;
      const sum = acc[2 * i] as number;
      acc[2 * i] = 0;
      acc[2 * i + 1] = 0;
      if (held < need) continue;
      const share = (sum / total) * (prior[i] as number);
      const slot = slots[i] as number;
      if (pageDef[slot] === -1) pages.push(slot);
      else if (!(share > (pageShare[slot] as number))) continue;
      pageShare[slot] = share;
      pageDef[slot] = i;
    }
    // The `limit` best pages, by share, then by page: kept in order as they come.
    const page = (slot: number) => this.#pages[pageDef[slot] as number] as number;
    const before = (a: number, b: number) =>
      (pageShare[a] as number) > (pageShare[b] as number) || (pageShare[a] === pageShare[b] && page(a) < page(b));
    const chosen: number[] = [];
    for (const slot of pages) {
      if (chosen.length >= limit && !before(slot, chosen[chosen.length - 1] as number)) continue;
      let at = chosen.length;
      while (at > 0 && before(slot, chosen[at - 1] as number)) at--;
      chosen.splice(at, 0, slot);
      if (chosen.length > limit) chosen.pop();
    }
    const out: DescriptionMatch[] = [];
    for (const slot of chosen) {
      const i = pageDef[slot] as number;
      out.push({ page: this.#pages[i] as number, term: this.#names[i] as string, share: pageShare[slot] as number });
    }
    for (const slot of pages) pageDef[slot] = -1;
    return out;
  }

  /** The definitions in any of `lists`, each once (on scratch space: good until the next call). */
  #unionOf(lists: readonly Int32Array[]): ArrayLike<number> {
    if (lists.length <= 1) return lists[0] ?? [];
    if (++this.#stamp === 0xffffffff) {
      this.#seen.fill(0);
      this.#stamp = 1;
    }
    const stamp = this.#stamp;
    const seen = this.#seen;
    const union = this.#union;
    let count = 0;
    for (const list of lists)
      for (let k = 0; k < list.length; k++) {
        const i = list[k] as number;
        if (seen[i] !== stamp) {
          seen[i] = stamp;
          union[count++] = i;
        }
      }
    return union.subarray(0, count);
  }
}
