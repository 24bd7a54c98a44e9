import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { indexIn } from '../sorted.ts';
import { grown } from '../typed-arrays.ts';
import type { Concept } from '../tokenize.ts';
import { ABSENT, IdTable } from './id-table.ts';
import { Kept } from './kept.ts';
import { MAX_LINK_BLOCKS } from './schema.ts';

/** A row of `link_words`: a page with the word, the word's bits and its blocks (uint16 each). */
type Row = { id: number; mask: number; blocks: Uint8Array | null };

/** Which pages have a word in the blocks of text their inbound links stand in, as a query asks. */
interface PagesOfWord {
  /** Whether any page has. */
  readonly any: boolean;
  mask(id: number): number;
  /** Whether some block of page `id` holds the word. */
  inBlocks(id: number): boolean;
  /** The blocks of page `id` holding the word, ascending; null for none. */
  blocksOf(id: number): Uint16Array | null;
}

/**
 * The pages with a word in the blocks of text their inbound links stand in: by page id, ascending,
 * side by side, the first blocks' bits (`masks`) and where each page's blocks are (`starts`) in
 * one list of every page's blocks by number (`blocks`; none for an index from before decision
 * 0082). Arrays, not a map of objects: a query looks a word up for every candidate, and a binary
 * search over one array stays in the cache where a map's entries do not.
 */
class WordPages implements PagesOfWord {
  readonly #ids: Int32Array;
  readonly #masks: Int32Array;
  readonly #starts: Uint32Array;
  readonly #blocks: Uint16Array;

  constructor(rows: readonly Row[]) {
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

  get any(): boolean {
    return this.#ids.length > 0;
  }

  /** The memory it holds, about. */
  get bytes(): number {
    return 64 + this.#ids.byteLength + this.#masks.byteLength + this.#starts.byteLength + this.#blocks.byteLength;
  }

  mask(id: number): number {
    const at = indexIn(this.#ids, id);
    return at < 0 ? 0 : (this.#masks[at] as number);
  }

  inBlocks(id: number): boolean {
    const at = indexIn(this.#ids, id);
    return at >= 0 && (this.#starts[at + 1] as number) > (this.#starts[at] as number);
  }

  blocksOf(id: number): Uint16Array | null {
    const at = indexIn(this.#ids, id);
    if (at < 0) return null;
    const from = this.#starts[at] as number;
    const to = this.#starts[at + 1] as number;
    return to > from ? this.#blocks.subarray(from, to) : null;
  }
}

/**
 * The pages of a word with too many to read whole (WHOLE_WORD_ROWS), read for the pages queries
 * ask about only (their candidates, a few hundred a query), each page once, and kept between
 * queries as long as the word is (decision 0151): a natural question's candidates are mostly
 * pages other questions asked about too (at 10⁵ pages, 55 % of the dev questions' reads were
 * of a word and page read before). In typed arrays, as WordPages, the pages asked about in an
 * IdTable: each query asks about every candidate several times for each common word, and a map of
 * an object a row took about twice the time and three times the memory (decision 0152).
 */
class SomePages implements PagesOfWord {
  readonly any = true;
  /** By page asked about: its row's place, or −1 for a page without the word. */
  readonly #asked = new IdTable();
  /** By row: its bits, and where its blocks start in #blocks (the row after's start is where they end). */
  #masks = new Int32Array(16);
  #starts = new Uint32Array(17);
  #blocks = new Uint16Array(64);
  #rows = 0;

  /** The memory it holds, about. */
  get bytes(): number {
    return 64 + this.#asked.bytes + this.#masks.byteLength + this.#starts.byteLength + this.#blocks.byteLength;
  }

  /** Reads, with `read`, the rows of the pages of `ids` not asked about before; whether it read any. */
  cover(ids: readonly number[], read: (ids: number[]) => Row[]): boolean {
    const missing: number[] = [];
    for (const id of ids) {
      if (this.#asked.get(id) !== ABSENT) continue;
      this.#asked.set(id, -1);
      missing.push(id);
    }
    if (!missing.length) return false;
    for (const r of read(missing)) {
      const n = (r.blocks?.byteLength ?? 0) >> 1;
      const row = this.#rows++;
      if (row === this.#masks.length) {
        this.#masks = grown(this.#masks, 2 * row);
        this.#starts = grown(this.#starts, 2 * row + 1);
      }
      const from = this.#starts[row] as number;
      if (from + n > this.#blocks.length) this.#blocks = grown(this.#blocks, Math.max(2 * this.#blocks.length, from + n));
      // Its bytes copied: a blob's need not be aligned for a Uint16Array.
      if (n) new Uint8Array(this.#blocks.buffer).set((r.blocks as Uint8Array).subarray(0, 2 * n), 2 * from);
      this.#masks[row] = r.mask;
      this.#starts[row + 1] = from + n;
      this.#asked.set(r.id, row);
    }
    return true;
  }

  mask(id: number): number {
    const row = this.#asked.get(id);
    return row >= 0 ? (this.#masks[row] as number) : 0;
  }

  inBlocks(id: number): boolean {
    const row = this.#asked.get(id);
    return row >= 0 && (this.#starts[row + 1] as number) > (this.#starts[row] as number);
  }

  blocksOf(id: number): Uint16Array | null {
    const row = this.#asked.get(id);
    if (row < 0) return null;
    const from = this.#starts[row] as number;
    const to = this.#starts[row + 1] as number;
    return to > from ? this.#blocks.subarray(from, to) : null;
  }
}

/**
 * A word with at most this many pages is read whole, once, and kept between queries (about 4 ms
 * and 32 KB at most); one with more is read for the candidates queries ask about only (SomePages;
 * decisions 0118, 0151). Read whole, the commonest words held memory and took time in proportion
 * to the corpus: "python" has 61,000 pages at 10⁵ pages (120 ms to read, 1 MB), ten times that at
 * 10⁶. A hundred candidates are read in about 0.1 ms a word, however large the corpus.
 */
const WHOLE_WORD_ROWS = 2048;
/** Words whose pages a reader keeps in memory (WordPages, SomePages), and the bytes those take at most. */
const WORDS_KEPT = 10_000;
const LINK_WORDS_BYTES = 256 * 1024 * 1024;

/**
 * What the pages linking to a page say of it (decisions 0081, 0082): the words of the blocks of
 * text those links stand in (`link_words`), read once a word and kept while the index stays the
 * same (clear() when it changes), the least recently used words dropped past limits of count and
 * bytes (trim()).
 */
export class InboundLinks {
  readonly #lookup: StatementSync;
  readonly #lookupSome: StatementSync;
  readonly #pages: Kept<string, WordPages | SomePages>;
  readonly #wholeRows: number;
  /** Scratch space of shares(): each inbound block's score, and the blocks it touched. */
  readonly #scores = new Float64Array(MAX_LINK_BLOCKS);
  readonly #touched: number[] = [];

  /** `bytes`: what the words' pages kept between queries take at most. `wholeRows`: the most
   * pages of a word read whole (WHOLE_WORD_ROWS; the tests lower it). */
  constructor(db: DatabaseSync, { bytes = LINK_WORDS_BYTES, wholeRows = WHOLE_WORD_ROWS }: { bytes?: number; wholeRows?: number } = {}) {
    this.#pages = new Kept(WORDS_KEPT, { limit: bytes, of: (pages) => pages.bytes });
    this.#wholeRows = wholeRows;
    this.#lookup = db.prepare('SELECT page_id AS id, mask, blocks FROM link_words WHERE head = ? LIMIT ?');
    this.#lookupSome = db.prepare(
      'SELECT page_id AS id, mask, blocks FROM link_words WHERE head = ? AND page_id IN (SELECT value FROM json_each(?))',
    );
  }

  clear(): void {
    this.#pages.clear();
  }

  /** Between queries: the least recently used words past the limits go (kept.ts). */
  trim(): void {
    this.#pages.trim();
  }

  /** The candidates that a link points at from a block of text holding every word of the query
   * (the same block; decision 0081). */
  holdingAll(concepts: readonly Concept[], rows: readonly { id: number }[]): Set<number> {
    const ids = rows.map((r) => r.id);
    const maps: PagesOfWord[] = [];
    for (const word of new Set(concepts.flatMap((c) => c.parts))) {
      const pages = this.#of(word, ids);
      if (!pages.any) return new Set();
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
    const ids = rows.map((r) => r.id);
    const worthy = concepts.flatMap((c, i) =>
      (worth.get(i) ?? 0) > 0 ? [{ w: worth.get(i) as number, maps: c.parts.map((word) => this.#of(word, ids)) }] : [],
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
      const maps = (concepts[i] as Concept).parts.map((word) => this.#of(word, ids));
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k] as number;
        let all = true;
        for (let j = 0; j < maps.length && all; j++) all = (maps[j] as PagesOfWord).inBlocks(id);
        if (all) out[k] = (out[k] as number) + w;
      }
    }
    return out;
  }

  /** The pages with a word in the blocks of text links to them stand in, and which blocks: all of
   * them, or for a word with many, those of `ids` at least. */
  #of(word: string, ids: readonly number[]): PagesOfWord {
    let pages = this.#pages.use(word);
    if (!pages) {
      const rows = this.#lookup.all(word, this.#wholeRows + 1) as Row[];
      this.#pages.set(word, (pages = rows.length > this.#wholeRows ? new SomePages() : new WordPages(rows)));
    }
    // Set again when it has grown, for the limit of bytes to count it as it is.
    if (pages instanceof SomePages && pages.cover(ids, (missing) => this.#lookupSome.all(word, JSON.stringify(missing)) as Row[]))
      this.#pages.set(word, pages);
    return pages;
  }
}

/** The blocks of text of links to page `id` holding every part of a concept (the parts' pages,
 * `maps`): the intersection of ascending block lists; null when a part is in none. */
function blocksHolding(maps: readonly PagesOfWord[], id: number): ArrayLike<number> | null {
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
