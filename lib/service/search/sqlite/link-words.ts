import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { indexIn } from '../sorted.ts';
import type { Concept } from '../tokenize.ts';
import { Kept } from './kept.ts';
import { MAX_LINK_BLOCKS } from './schema.ts';

/**
 * The pages with a word in the blocks of text their inbound links stand in: by page id, ascending,
 * side by side, the first blocks' bits (`masks`) and where each page's blocks are (`starts`) in
 * one list of every page's blocks by number (`blocks`; none for an index from before decision
 * 0082). Arrays, not a map of objects: a query looks a word up for every candidate, and a binary
 * search over one array stays in the cache where a map's entries do not.
 */
class WordPages {
  readonly #ids: Int32Array;
  readonly #masks: Int32Array;
  readonly #starts: Uint32Array;
  readonly #blocks: Uint16Array;

  constructor(rows: readonly { id: number; mask: number; blocks: Uint8Array | null }[]) {
    const sorted = [...rows].sort((a, b) => a.id - b.id);
    this.#ids = Int32Array.from(sorted, (r) => r.id);
    this.#masks = Int32Array.from(sorted, (r) => r.mask);
    this.#starts = new Uint32Array(sorted.length + 1);
    let total = 0;
    sorted.forEach((r, i) => {
      this.#starts[i] = total;
      total += (r.blocks?.byteLength ?? 0) >> 1;
    });
    this.#starts[sorted.length] = total;
    this.#blocks = new Uint16Array(total);
    const bytes = new Uint8Array(this.#blocks.buffer);
    sorted.forEach((r, i) => {
      if (r.blocks) bytes.set(r.blocks.subarray(0, r.blocks.byteLength & ~1), 2 * (this.#starts[i] as number));
    });
  }

  get size(): number {
    return this.#ids.length;
  }

  mask(id: number): number {
    const at = indexIn(this.#ids, id);
    return at < 0 ? 0 : (this.#masks[at] as number);
  }

  /** Whether some block of page `id` holds the word. */
  inBlocks(id: number): boolean {
    const at = indexIn(this.#ids, id);
    return at >= 0 && (this.#starts[at + 1] as number) > (this.#starts[at] as number);
  }

  /** The blocks of page `id` holding the word, ascending; null for none. */
  blocksOf(id: number): Uint16Array | null {
    const at = indexIn(this.#ids, id);
    if (at < 0) return null;
    const from = this.#starts[at] as number;
    const to = this.#starts[at + 1] as number;
    return to > from ? this.#blocks.subarray(from, to) : null;
  }
}

/** Words whose pages a reader keeps in memory. */
const WORDS_KEPT = 10_000;

/**
 * What the pages linking to a page say of it (decisions 0081, 0082): the words of the blocks of
 * text those links stand in (`link_words`), read once a word and kept while the index stays the
 * same (clear() when it changes), the least recently used words dropped past a limit (trim()).
 */
export class InboundLinks {
  readonly #lookup: StatementSync;
  readonly #pages = new Kept<string, WordPages>(WORDS_KEPT);
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
    const maps: WordPages[] = [];
    for (const word of new Set(concepts.flatMap((c) => c.parts))) {
      const pages = this.#of(word);
      if (!pages.size) return new Set();
      maps.push(pages);
    }
    const all = new Set<number>();
    for (const r of rows) {
      let mask = -1;
      for (const m of maps) if (!(mask &= m.mask(r.id))) break;
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
    // The concepts worth something, each with its words' pages.
    const worthy = concepts.flatMap((c, i) =>
      (worth.get(i) ?? 0) > 0 ? [{ w: worth.get(i) as number, maps: c.parts.map((word) => this.#of(word)) }] : [],
    );
    const byBlock = this.#scores;
    const touched = this.#touched;
    for (const r of rows) {
      let best = 0;
      for (const { w, maps } of worthy) {
        const held = blocksHolding(maps, r.id);
        if (!held) continue;
        for (let j = 0; j < held.length; j++) {
          const b = held[j] as number;
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
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k] as number;
        let all = true;
        for (let j = 0; j < maps.length && all; j++) all = (maps[j] as WordPages).inBlocks(id);
        if (all) out[k] = (out[k] as number) + w;
      }
    }
    return out;
  }

  /** The pages with a word in the blocks of text links to them stand in, and which blocks. */
  #of(word: string): WordPages {
    let pages = this.#pages.use(word);
    if (!pages)
      this.#pages.set(word, (pages = new WordPages(this.#lookup.all(word) as { id: number; mask: number; blocks: Uint8Array | null }[])));
    return pages;
  }
}

/** The blocks of text of links to page `id` holding every part of a concept (the parts' pages,
 * `maps`): the intersection of ascending block lists; null when a part is in none. */
function blocksHolding(maps: readonly WordPages[], id: number): ArrayLike<number> | null {
  let held: readonly number[] | Uint16Array | null = null;
  for (const m of maps) {
    const list = m.blocksOf(id);
    if (!list) return null;
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
