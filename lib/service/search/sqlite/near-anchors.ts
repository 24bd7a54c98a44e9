import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Kept } from './kept.ts';
import { indexIn } from '../sorted.ts';
import { mayHold, wordHash, type WordSignature } from '../word-signature.ts';
import { DEF_NEAR, NEAR_SIGNATURES_META, NEAR_WORDS_META } from './schema.ts';

/** Candidates' words near their index anchors a reader keeps in memory (about 1.6 KB a page at
 * 10⁵ pages of the scale corpus), and the bytes they may hold. */
const PAGES_KEPT = 50_000;
const BYTES_KEPT = 64 * 1024 * 1024;
/** Words whose pages near an index anchor a reader of an index from before `near_words` keeps,
 * and what one takes besides its pages' ids (its entry, key and typed array; measured). */
const WORDS_KEPT = 10_000;
const WORD_KEPT_BYTES = 360;

/**
 * Which of a query's candidates have every word of the query within a few words after one of
 * their index anchors (not necessarily the same one; decision 0081): read for the candidates
 * from `near_words`, one row a page (decision 0122), and kept by page while the index stays the
 * same. Most candidates lack one of the words, which the signature of them in the page's signals
 * says (decision 0155): a row is read only for a candidate whose signature may hold them all. An
 * index from before the signatures reads every candidate's row; one from before `near_words`
 * keeps the words as `defs` rows (DEF_NEAR), where every page holding a word near an anchor is
 * read, by word.
 */
export class NearAnchors {
  readonly #db: DatabaseSync;
  #byPage: StatementSync | null = null;
  #byWord: StatementSync | null = null;
  /** How the index keeps them (signed, by page only, or by word in `defs`), read once per index
   * version. */
  #kept: 'signed' | 'paged' | 'defs' | null = null;
  /** By page: its words near an anchor, space-separated with a space at either end. */
  readonly #pages: Kept<number, string>;
  /** By word, in an index from before `near_words`: the pages that have it near an anchor, in
   * order. A common word's are many, so they are counted in bytes too. */
  readonly #words: Kept<string, Int32Array>;

  /** `bytesKept`: the room for each of the two tiers (tests make it small). */
  constructor(db: DatabaseSync, bytesKept = BYTES_KEPT) {
    this.#db = db;
    this.#pages = new Kept(PAGES_KEPT, { limit: bytesKept, of: (words) => 2 * words.length + 64 });
    this.#words = new Kept(WORDS_KEPT, { limit: bytesKept, of: (pages) => pages.byteLength + WORD_KEPT_BYTES });
  }

  /** Drops what was read (the index changed). */
  clear(): void {
    this.#kept = null;
    this.#pages.clear();
    this.#words.clear();
  }

  /** Forgets the least recently used past the limits. */
  trim(): void {
    this.#pages.trim();
    this.#words.trim();
  }

  /** Those of `candidates` that have each of `words` near an index anchor; `signature`, a
   * candidate's signature of its words near an anchor (signals.near_signature), null for none. */
  of(words: readonly string[], candidates: readonly { id: number }[], signature: (id: number) => WordSignature | null): Set<number> {
    const out = new Set<number>();
    if (!words.length || !candidates.length) return out;
    this.#kept ??= this.#form();
    if (this.#kept === 'defs') return this.#ofWords(words, candidates);
    const ids = candidates.map((c) => c.id);
    if (this.#kept === 'paged') return this.#ofPages(words, ids);
    const hashes = words.map(wordHash);
    return this.#ofPages(
      words,
      ids.filter((id) => {
        const signed = signature(id);
        return signed !== null && hashes.every((h) => mayHold(signed, h));
      }),
    );
  }

  #form(): 'signed' | 'paged' | 'defs' {
    const marked = (key: string) => this.#db.prepare('SELECT 1 FROM search_meta WHERE key = ?').get(key) !== undefined;
    return marked(NEAR_WORDS_META) ? (marked(NEAR_SIGNATURES_META) ? 'signed' : 'paged') : 'defs';
  }

  /** Those of `ids` whose row holds every one of `words`: the rows not kept are read. */
  #ofPages(words: readonly string[], ids: readonly number[]): Set<number> {
    const missing = ids.filter((id) => this.#pages.use(id) === undefined);
    if (missing.length) {
      this.#byPage ??= this.#db.prepare('SELECT page_id AS id, words FROM near_words WHERE page_id IN (SELECT value FROM json_each(?))');
      const found = new Map<number, string>();
      for (const r of this.#byPage.all(JSON.stringify(missing)) as { id: number; words: string }[]) found.set(r.id, r.words);
      for (const id of missing) this.#pages.set(id, ` ${found.get(id) ?? ''} `);
    }
    const padded = words.map((w) => ` ${w} `);
    const out = new Set<number>();
    for (const id of ids) {
      const near = this.#pages.get(id) as string;
      if (padded.every((w) => near.includes(w))) out.add(id);
    }
    return out;
  }

  #ofWords(words: readonly string[], candidates: readonly { id: number }[]): Set<number> {
    this.#byWord ??= this.#db.prepare(`SELECT page_id AS id FROM defs WHERE head = ? AND kind & ${DEF_NEAR}`);
    const lists: Int32Array[] = [];
    for (const word of words) {
      let pages = this.#words.use(word);
      if (!pages) {
        pages = Int32Array.from(this.#byWord.all(word) as { id: number }[], (r) => r.id).sort();
        this.#words.set(word, pages);
      }
      if (!pages.length) return new Set();
      lists.push(pages);
    }
    const out = new Set<number>();
    for (const c of candidates) if (lists.every((pages) => indexIn(pages, c.id) >= 0)) out.add(c.id);
    return out;
  }
}
