import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Kept } from './kept.ts';
import { DEF_NEAR, NEAR_WORDS_META } from './schema.ts';

/** Candidates' words near their index anchors a reader keeps in memory (about 1.6 KB a page at
 * 10⁵ pages of the scale corpus), and the bytes they may hold. */
const PAGES_KEPT = 50_000;
const BYTES_KEPT = 64 * 1024 * 1024;
/** Words whose pages near an index anchor a reader of an index from before `near_words` keeps. */
const WORDS_KEPT = 10_000;

/**
 * Which of a query's candidates have every word of the query within a few words after one of
 * their index anchors (not necessarily the same one; decision 0081): read for the candidates
 * from `near_words`, one row a page (decision 0122), and kept by page while the index stays the
 * same. An index from before it keeps them as `defs` rows (DEF_NEAR), where every page holding
 * a word near an anchor is read, by word.
 */
export class NearAnchors {
  readonly #db: DatabaseSync;
  #byPage: StatementSync | null = null;
  #byWord: StatementSync | null = null;
  /** Whether the index keeps them by page, read once per index version. */
  #paged: boolean | null = null;
  /** By page: its words near an anchor, space-separated with a space at either end. */
  readonly #pages = new Kept<number, string>(PAGES_KEPT, { limit: BYTES_KEPT, of: (words) => 2 * words.length + 64 });
  /** By word, in an index from before `near_words`: the pages that have it near an anchor. */
  readonly #words = new Kept<string, Set<number>>(WORDS_KEPT);

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Drops what was read (the index changed). */
  clear(): void {
    this.#paged = null;
    this.#pages.clear();
    this.#words.clear();
  }

  /** Forgets the least recently used past the limits. */
  trim(): void {
    this.#pages.trim();
    this.#words.trim();
  }

  /** Those of `candidates` that have each of `words` near an index anchor. */
  of(words: readonly string[], candidates: readonly { id: number }[]): Set<number> {
    const out = new Set<number>();
    if (!words.length || !candidates.length) return out;
    this.#paged ??= this.#db.prepare(`SELECT 1 FROM search_meta WHERE key = '${NEAR_WORDS_META}'`).get() !== undefined;
    return this.#paged ? this.#ofPages(words, candidates) : this.#ofWords(words, candidates);
  }

  #ofPages(words: readonly string[], candidates: readonly { id: number }[]): Set<number> {
    const missing: number[] = [];
    for (const c of candidates) if (this.#pages.use(c.id) === undefined) missing.push(c.id);
    if (missing.length) {
      this.#byPage ??= this.#db.prepare('SELECT page_id AS id, words FROM near_words WHERE page_id IN (SELECT value FROM json_each(?))');
      const found = new Map<number, string>();
      for (const r of this.#byPage.all(JSON.stringify(missing)) as { id: number; words: string }[]) found.set(r.id, r.words);
      for (const id of missing) this.#pages.set(id, ` ${found.get(id) ?? ''} `);
    }
    const padded = words.map((w) => ` ${w} `);
    const out = new Set<number>();
    for (const c of candidates) {
      const near = this.#pages.get(c.id) as string;
      if (padded.every((w) => near.includes(w))) out.add(c.id);
    }
    return out;
  }

  #ofWords(words: readonly string[], candidates: readonly { id: number }[]): Set<number> {
    this.#byWord ??= this.#db.prepare(`SELECT page_id AS id FROM defs WHERE head = ? AND kind & ${DEF_NEAR}`);
    const sets: Set<number>[] = [];
    for (const word of words) {
      let pages = this.#words.use(word);
      if (!pages) this.#words.set(word, (pages = new Set((this.#byWord.all(word) as { id: number }[]).map((r) => r.id))));
      if (!pages.size) return new Set();
      sets.push(pages);
    }
    const out = new Set<number>();
    for (const c of candidates) if (sets.every((s) => s.has(c.id))) out.add(c.id);
    return out;
  }
}
