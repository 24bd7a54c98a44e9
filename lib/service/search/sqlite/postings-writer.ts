import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { concatPostings, mergePostings, NO_POSTINGS } from './posting-lists.ts';
import { PostingBuffer } from './posting-buffer.ts';
import { PostingRuns } from './posting-runs.ts';
import { packPostings, unpackPostings } from './packed-postings.ts';
import { POSTINGS_FORMAT, reversed } from './postings.ts';
import { FTS_COLUMNS, FIELD_WEIGHTS, PASSAGE_SLOTS } from './schema.ts';
import { FtsTokenizer } from './tokenizer.ts';
import { packText, unpackText } from './packed-text.ts';

type Column = (typeof FTS_COLUMNS)[number];
/** A page as the full-text table gets it: token streams (tokenize.ts) by column, and the body's by
 * block (line). */
export type PageTokens = {
  fields: Readonly<Record<Exclude<Column, 'body'>, string>>;
  bodyBlocks: readonly string[];
};

/** Blocks remembered per term and page: every one a passage can be (the first PASSAGE_SLOTS of the
 * page), so that ranking can score a page by its best passage (decision 0082). */
const MAX_PLACES = PASSAGE_SLOTS;
/** Entries (a term in a page) gathered in memory before they are added to the runs by default:
 * about 20 MB with their terms (the corpus has 3 million in 340,000 terms: 7 runs). */
const BUFFERED_ENTRIES = 500_000;

type TokenCount = { weighted: number; n: number; places: number[] | null };

/**
 * Keeps the postings (postings.ts) in step with the full-text rows. The index writer reports each
 * page whose row it rebuilt (or dropped), in ascending id order; flush() then rewrites the
 * postings of every term those pages held or hold, in a transaction of the caller's, and marks
 * them complete. A page's terms are FTS5's own (tokenizer.ts), counted with the columns' weights.
 * The new entries wait in a buffer of bounded size, and then in runs on disk (posting-runs.ts),
 * so a full rebuild of a large index takes little memory.
 */
export class PostingsWriter {
  readonly #db: DatabaseSync;
  readonly #tokenizer = new FtsTokenizer();
  readonly #runs: PostingRuns;
  readonly #q: Record<
    | 'oldTerms'
    | 'lookup'
    | 'put'
    | 'drop'
    | 'putEnd'
    | 'dropEnd'
    | 'putPage'
    | 'putList'
    | 'dropPage'
    | 'dropList'
    | 'meta'
    | 'format'
    | 'count',
    StatementSync
  >;
  readonly #buffer = new PostingBuffer();
  readonly #bufferSize: number;
  /** Pages reported since the last flush (their entries replace those the postings hold). */
  readonly #changed = new Set<number>();
  /** Terms the reported pages held before, since the buffer was last added to the runs. */
  readonly #stale = new Set<string>();
  #lastId = -1;

  /** `bufferedEntries`: how many new entries wait in memory before they go to a run. */
  constructor(db: DatabaseSync, { bufferedEntries = BUFFERED_ENTRIES }: { bufferedEntries?: number } = {}) {
    this.#db = db;
    this.#bufferSize = bufferedEntries;
    this.#runs = new PostingRuns(db);
    this.#q = {
      oldTerms: db.prepare(
        'SELECT p.terms AS text, l.terms AS packed FROM page_terms p LEFT JOIN page_term_lists l USING (page_id) WHERE page_id = ?',
      ),
      lookup: db.prepare('SELECT data FROM postings WHERE term = ?'),
      put: db.prepare('INSERT OR REPLACE INTO postings (term, data) VALUES (?, ?)'),
      drop: db.prepare('DELETE FROM postings WHERE term = ?'),
      putEnd: db.prepare('INSERT OR IGNORE INTO term_ends (reversed) VALUES (?)'),
      dropEnd: db.prepare('DELETE FROM term_ends WHERE reversed = ?'),
      putPage: db.prepare("INSERT OR REPLACE INTO page_terms (page_id, length, terms) VALUES (?, ?, '')"),
      putList: db.prepare('INSERT OR REPLACE INTO page_term_lists (page_id, terms) VALUES (?, ?)'),
      dropPage: db.prepare('DELETE FROM page_terms WHERE page_id = ?'),
      dropList: db.prepare('DELETE FROM page_term_lists WHERE page_id = ?'),
      meta: db.prepare("INSERT OR REPLACE INTO search_meta (key, value) VALUES ('postings', ?)"),
      format: db.prepare("SELECT value FROM search_meta WHERE key = 'postings'"),
      count: db.prepare('SELECT COUNT(*) AS n FROM postings'),
    };
  }

  /** Whether the postings are missing or in another format: then every page must be reported
   * again, after reset(). */
  stale(): boolean {
    return (this.#q.format.get() as { value: string } | undefined)?.value !== POSTINGS_FORMAT;
  }

  /** Drops all postings (inside the caller's transaction). */
  reset(): void {
    this.#db.exec(
      "DELETE FROM postings; DELETE FROM term_ends; DELETE FROM page_terms; DELETE FROM page_term_lists; DELETE FROM search_meta WHERE key = 'postings';",
    );
    this.#forget();
  }

  /** A page whose full-text row was rebuilt, or dropped (null). Pages come in ascending id order;
   * call inside a transaction of the caller's. */
  page(id: number, page: PageTokens | null): void {
    if (id <= this.#lastId) throw new Error(`page ${id} reported after page ${this.#lastId}: pages come in ascending id order, once`);
    this.#lastId = id;
    this.#changed.add(id);
    // Its terms as a version before kept them (page_terms.terms), or packed.
    const old = this.#q.oldTerms.get(id) as { text: string; packed: Uint8Array | null } | undefined;
    const held = old?.packed ? unpackText(old.packed) : old?.text;
    if (held) for (const t of held.split(' ')) this.#stale.add(t);
    if (!page) {
      this.#q.dropPage.run(id);
      this.#q.dropList.run(id);
      return;
    }
    const { length, terms } = this.#terms(this.#tokens(page));
    if (this.#buffer.size + terms.size > this.#bufferSize && this.#buffer.size) this.#spill();
    for (const [t, e] of terms) this.#buffer.add(t, id, e.weighted, e.places);
    this.#q.putPage.run(id, length);
    this.#q.putList.run(id, packText([...terms.keys()].join(' ')));
  }

  /** The page's tokens with their weighted count, number and the blocks they occur in. */
  #tokens(page: PageTokens): Map<string, TokenCount> {
    const tokens = new Map<string, TokenCount>();
    const count = (stream: string, w: number, place: number) => {
      for (const token of stream.split(' ')) {
        const seen = tokens.get(token);
        if (seen) {
          seen.weighted += w;
          seen.n++;
          if (place >= 0) {
            if (!seen.places) seen.places = [place];
            else if (seen.places.length < MAX_PLACES && seen.places.at(-1) !== place) seen.places.push(place);
          }
        } else if (token) tokens.set(token, { weighted: w, n: 1, places: place >= 0 ? [place] : null });
      }
    };
    for (const column of FTS_COLUMNS) if (column !== 'body') count(page.fields[column], FIELD_WEIGHTS[column], -1);
    page.bodyBlocks.forEach((block, i) => count(block, FIELD_WEIGHTS.body, i < PASSAGE_SLOTS ? i : -1));
    return tokens;
  }

  /** Tokens to FTS5 terms: a page's length in terms (as FTS5 counts it) and each term's count. */
  #terms(tokens: Map<string, TokenCount>): { length: number; terms: Map<string, TokenCount> } {
    const terms = new Map<string, TokenCount>();
    let length = 0;
    const add = (list: readonly string[], e: TokenCount) => {
      length += e.n * list.length;
      for (const t of list) {
        const into = terms.get(t);
        if (!into) terms.set(t, { weighted: e.weighted, n: e.n, places: e.places });
        else {
          into.weighted += e.weighted;
          into.n += e.n;
          if (e.places) into.places = [...new Set([...(into.places ?? []), ...e.places])].sort((a, b) => a - b).slice(0, MAX_PLACES);
        }
      }
    };
    const fresh: string[] = [];
    for (const [token, e] of tokens) {
      const list = this.#tokenizer.known(token);
      if (list) add(list, e);
      else fresh.push(token);
    }
    this.#tokenizer.learn(fresh);
    for (const token of fresh) add(this.#tokenizer.terms(token), tokens.get(token) as TokenCount);
    return { length, terms };
  }

  /** The buffered entries, and the terms the pages held before (with no entries), as a run. */
  #spill(): void {
    for (const [t, entries] of this.#buffer.drain()) {
      this.#runs.add(t, entries);
      this.#stale.delete(t);
    }
    for (const t of this.#stale) this.#runs.add(t, NO_POSTINGS);
    this.#runs.endRun();
    this.#stale.clear();
  }

  /** Rewrites the postings of every term the reported pages held or hold, in term order, and marks
   * the postings complete; `progress` is told how many of the runs' lists (a term's entries in one
   * run) are done. */
  flush(progress?: (done: number, total: number) => void): void {
    const q = this.#q;
    this.#spill();
    const fresh = (q.count.get() as { n: number }).n === 0;
    const total = this.#runs.lists();
    const changed = this.#changed;
    const dropped = (id: number) => changed.has(id);
    const born: string[] = [];
    let done = 0;
    let told = 0;
    for (const [t, runs] of this.#runs.drain()) {
      const added = concatPostings(runs);
      const row = fresh ? undefined : (q.lookup.get(t) as { data: Uint8Array } | undefined);
      const list = row ? mergePostings(unpackPostings(row.data), dropped, added) : added;
      if (list.docs.length) {
        q.put.run(t, packPostings(list));
        if (!row) born.push(reversed(t));
      } else if (row) {
        q.drop.run(t);
        q.dropEnd.run(reversed(t));
      }
      done += runs.length;
      if (progress && done - told >= 1000) progress((told = done), total);
    }
    // New terms' ends, in order (a fresh index adds every term).
    for (const r of born.sort()) q.putEnd.run(r);
    q.meta.run(POSTINGS_FORMAT);
    progress?.(total, total);
    this.#forget();
  }

  #forget(): void {
    this.#runs.clear();
    this.#buffer.clear();
    this.#changed.clear();
    this.#stale.clear();
    this.#lastId = -1;
  }

  close(): void {
    this.#tokenizer.close();
  }
}
