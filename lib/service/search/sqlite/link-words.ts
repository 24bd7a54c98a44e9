import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Concept } from '../tokenize.ts';
import { Kept } from './kept.ts';
import { MAX_LINK_BLOCKS } from './schema.ts';

/** A word's place among a page's inbound link contexts: the first blocks' bits, and every block by
 * number (null for an index from before decision 0082). */
type LinkWord = { mask: number; blocks: Uint16Array | null };
/** Words whose pages a reader keeps in memory. */
const WORDS_KEPT = 10_000;

/**
 * What the pages linking to a page say of it (decisions 0081, 0082): the words of the blocks of
 * text those links stand in (`link_words`), read once a word and kept while the index stays the
 * same (clear() when it changes), the least recently used words dropped past a limit (trim()).
 */
export class InboundLinks {
  readonly #lookup: StatementSync;
  readonly #pages = new Kept<string, Map<number, LinkWord>>(WORDS_KEPT);
  /** Scratch space of shares(): each inbound block's score, and the blocks it touched. */
  readonly #scores = new Float64Array(MAX_LINK_BLOCKS);
  readonly #touched: number[] = [];

  constructor(db: DatabaseSync) {
    this.#lookup = db.prepare('SELECT page_id AS id, mask, blocks FROM link_words WHERE head = ?');
  }

  clear(): void {
    this.#pages.clear();
  }

  /** Between queries: the least recently used words past the limit go (kept.ts). */
  trim(): void {
    this.#pages.trim();
  }

  /** The candidates that a link points at from a block of text holding every word of the query
   * (the same block; decision 0081). */
  holdingAll(concepts: readonly Concept[], rows: readonly { id: number }[]): Set<number> {
    const maps: Map<number, LinkWord>[] = [];
    for (const word of new Set(concepts.flatMap((c) => c.parts))) {
      const pages = this.#of(word);
      if (!pages.size) return new Set();
      maps.push(pages);
    }
    const all = new Set<number>();
    for (const r of rows) {
      let mask = -1;
      for (const m of maps) if (!(mask &= m.get(r.id)?.mask ?? 0)) break;
      if (mask) all.add(r.id);
    }
    return all;
  }

  /** For each candidate, the share of the query (each concept by its `worth`) that the best block of
   * text a link to it stands in holds (decision 0082): what the pages pointing at it say it is for. */
  shares(concepts: readonly Concept[], rows: readonly { id: number }[], worth: ReadonlyMap<number, number>): Map<number, number> {
    const out = new Map<number, number>();
    let total = 0;
    for (const w of worth.values()) total += w;
    if (total <= 0) return out;
    const maps = concepts.map((c) => c.parts.map((word) => this.#of(word)));
    const byBlock = this.#scores;
    const touched = this.#touched;
    for (const r of rows) {
      let best = 0;
      for (let i = 0; i < concepts.length; i++) {
        const w = worth.get(i) ?? 0;
        const held = w ? blocksHolding((maps[i] as Map<number, LinkWord>[]).map((m) => m.get(r.id)?.blocks)) : null;
        if (!held) continue;
        for (const b of held) {
          if (byBlock[b] === 0) touched.push(b);
          const v = (byBlock[b] as number) + w;
          byBlock[b] = v;
          if (v > best) best = v;
        }
      }
      for (const b of touched) byBlock[b] = 0;
      touched.length = 0;
      out.set(r.id, best / total);
    }
    return out;
  }

  /**
   * At most what shares() gives each of `ids`: the worth of the concepts whose every word is in some
   * block of text a link to it stands in, over the whole query's.
   */
  shareBounds(concepts: readonly Concept[], ids: readonly number[], worth: ReadonlyMap<number, number>): Float64Array {
    const out = new Float64Array(ids.length);
    let total = 0;
    for (const w of worth.values()) total += w;
    if (total <= 0) return out;
    for (let i = 0; i < concepts.length; i++) {
      const w = (worth.get(i) ?? 0) / total;
      if (!w) continue;
      const maps = (concepts[i] as Concept).parts.map((word) => this.#of(word));
      for (let k = 0; k < ids.length; k++) if (maps.every((m) => m.get(ids[k] as number)?.blocks?.length)) out[k] = (out[k] as number) + w;
    }
    return out;
  }

  /** The pages with a word in the blocks of text links to them stand in, and which blocks. */
  #of(word: string): Map<number, LinkWord> {
    let pages = this.#pages.use(word);
    if (!pages) {
      pages = new Map();
      for (const r of this.#lookup.all(word) as { id: number; mask: number; blocks: Uint8Array | null }[])
        pages.set(r.id, { mask: r.mask, blocks: r.blocks ? new Uint16Array(r.blocks.slice().buffer) : null });
      this.#pages.set(word, pages);
    }
    return pages;
  }
}

/** The blocks holding every part of a concept: the intersection of ascending block lists; null when
 * a part is in none. */
function blocksHolding(lists: readonly (Uint16Array | null | undefined)[]): Iterable<number> | null {
  let held: readonly number[] | Uint16Array | null = null;
  for (const list of lists) {
    if (!list?.length) return null;
    if (!held) held = list;
    else {
      const set = new Set<number>(list);
      const both: number[] = [];
      for (const b of held) if (set.has(b)) both.push(b);
      if (!both.length) return null;
      held = both;
    }
  }
  return held;
}
