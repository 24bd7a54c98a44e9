import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { concatPostings, mergePostings, NO_POSTINGS } from './posting-lists.ts';
import { PostingBuffer, termOrder } from './posting-buffer.ts';
import { PostingRuns } from './posting-runs.ts';
import {
  joinPassages,
  packPages,
  packPassageBlock,
  packPostings,
  PASSAGE_BLOCK,
  passagesApart,
  unpackPostings,
} from './packed-postings.ts';
import { encodePostings, POSTINGS_FORMAT, reversed, type PostingList } from './postings.ts';
import { unpackText } from './packed-text.ts';
import type { PageTerms } from './page-build.ts';
import { POSTINGS_TABLES } from './schema.ts';

/** Entries (a term in a page) gathered in memory before they are added to the runs by default:
 * about 200 MB with their terms. Each run writes a row for every term it holds, so fewer, larger
 * runs write fewer rows for the same entries: at 10,000 pages, 0.57 million rows instead of 1.34
 * with 500,000 entries a run (decision 0087). */
const BUFFERED_ENTRIES = 4_000_000;

/** A term's run list with no entries: the term of a page built again no longer holds it. */
const NO_ENTRIES = encodePostings(NO_POSTINGS);

/**
 * Keeps the postings (postings.ts) in step with the pages. The index writer reports each
 * page it built again (or dropped), in ascending id order, with its terms (page-build.ts: FTS5's
 * own, counted with the columns' weights); flush() then rewrites the postings of every term those
 * pages held or hold, and the pages' lengths and term lists, in one transaction of the caller's,
 * and marks them complete. The new entries wait in a buffer of bounded size, and then in runs on
 * disk (posting-runs.ts), so a full rebuild of a large index takes little memory.
 */
export class PostingsWriter {
  readonly #db: DatabaseSync;
  readonly #runs: PostingRuns;
  readonly #q: Record<
    | 'oldTerms'
    | 'lookup'
    | 'passages'
    | 'put'
    | 'putBlock'
    | 'drop'
    | 'dropBlocks'
    | 'born'
    | 'dropEnd'
    | 'pending'
    | 'meta'
    | 'format'
    | 'any',
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
    // The pages' new lengths and term lists (null: dropped), stored with their postings in flush().
    db.exec('CREATE TEMP TABLE IF NOT EXISTS pending_pages (page_id INTEGER PRIMARY KEY, length INTEGER, terms BLOB)');
    // The terms a flush adds to the postings, written backwards, until they are added to
    // term_ends in its order: a fresh index adds every term (431,000 at 10⁵ pages, millions at
    // 10⁶), which SQLite sorts on disk where an array of them grew with the corpus (decision 0117).
    db.exec('CREATE TEMP TABLE IF NOT EXISTS born_ends (reversed TEXT NOT NULL)');
    this.#q = {
      oldTerms: db.prepare(
        'SELECT p.terms AS text, l.terms AS packed FROM page_terms p LEFT JOIN page_term_lists l USING (page_id) WHERE page_id = ?',
      ),
      lookup: db.prepare('SELECT data FROM postings WHERE term = ?'),
      passages: db.prepare('SELECT data FROM term_passages WHERE term = ? ORDER BY block'),
      put: db.prepare('INSERT OR REPLACE INTO postings (term, data) VALUES (?, ?)'),
      putBlock: db.prepare('INSERT INTO term_passages (term, block, data) VALUES (?, ?, ?)'),
      drop: db.prepare('DELETE FROM postings WHERE term = ?'),
      dropBlocks: db.prepare('DELETE FROM term_passages WHERE term = ?'),
      born: db.prepare('INSERT INTO temp.born_ends (reversed) VALUES (?)'),
      dropEnd: db.prepare('DELETE FROM term_ends WHERE reversed = ?'),
      pending: db.prepare('INSERT OR REPLACE INTO temp.pending_pages (page_id, length, terms) VALUES (?, ?, ?)'),
      meta: db.prepare("INSERT OR REPLACE INTO search_meta (key, value) VALUES ('postings', ?)"),
      format: db.prepare("SELECT value FROM search_meta WHERE key = 'postings'"),
      any: db.prepare('SELECT EXISTS (SELECT 1 FROM postings) AS n'),
    };
  }

  /** Whether the postings are missing or in another format: then every page must be reported
   * again, after reset(). */
  stale(): boolean {
    return (this.#q.format.get() as { value: string } | undefined)?.value !== POSTINGS_FORMAT;
  }

  /** Drops all postings (inside the caller's transaction), their tables made anew as this
   * version makes them (schema.ts POSTINGS_TABLES). */
  reset(): void {
    this.#db.exec(`DROP TABLE postings; DROP TABLE term_passages; ${POSTINGS_TABLES}
      DELETE FROM term_ends; DELETE FROM page_terms; DELETE FROM page_term_lists; DELETE FROM search_meta WHERE key = 'postings';`);
    this.#forget();
  }

  /** A page built again, with its terms (page-build.ts), or dropped (null). Pages come in
   * ascending id order; call inside a transaction of the caller's. */
  page(id: number, terms: PageTerms | null): void {
    if (id <= this.#lastId) throw new Error(`page ${id} reported after page ${this.#lastId}: pages come in ascending id order, once`);
    this.#lastId = id;
    this.#changed.add(id);
    // Its terms as a version before kept them (page_terms.terms), or packed.
    const old = this.#q.oldTerms.get(id) as { text: string; packed: Uint8Array | null } | undefined;
    const held = old?.packed ? unpackText(old.packed) : old?.text;
    if (held) for (const t of held.split(' ')) this.#stale.add(t);
    if (!terms) {
      this.#q.pending.run(id, null, null);
      return;
    }
    if (this.#buffer.size + terms.freqs.length > this.#bufferSize && this.#buffer.size) this.#spill();
    this.#buffer.addPage(id, terms.names, terms.freqs, terms.placeCounts, terms.places);
    this.#q.pending.run(id, terms.length, terms.packed);
  }

  /** The buffered entries, and the terms the pages held before (with no entries), as a run, in
   * term order. */
  #spill(): void {
    const runs = this.#runs;
    const gone = [...this.#stale].filter((t) => !this.#buffer.has(t)).sort(termOrder);
    let g = 0;
    for (const [t, entries] of this.#buffer.drain()) {
      while (g < gone.length && termOrder(gone[g] as string, t) < 0) runs.add(gone[g++] as string, NO_ENTRIES);
      runs.add(t, entries);
    }
    while (g < gone.length) runs.add(gone[g++] as string, NO_ENTRIES);
    runs.endRun();
    this.#stale.clear();
  }

  /** Rewrites the postings of every term the reported pages held or hold, in term order, and marks
   * the postings complete; `progress` is told how many of the runs' lists (a term's entries in one
   * run) are done. */
  flush(progress?: (done: number, total: number) => void): void {
    const q = this.#q;
    this.#spill();
    const fresh = (q.any.get() as { n: number }).n === 0;
    const total = this.#runs.lists();
    const changed = this.#changed;
    const dropped = (id: number) => changed.has(id);
    let done = 0;
    let told = 0;
    for (const [t, runs] of this.#runs.drain()) {
      const added = concatPostings(runs);
      const row = fresh ? undefined : (q.lookup.get(t) as { data: Uint8Array } | undefined);
      const stored = row ? this.#stored(t, row.data) : null;
      const list = stored ? mergePostings(stored.list, dropped, added) : added;
      // Its blocks go with the row they were stored beside (a short list had none).
      if (stored?.blocks) q.dropBlocks.run(t);
      if (list.docs.length) {
        if (!list.places.length || !passagesApart(list.docs.length)) q.put.run(t, packPostings(list));
        else {
          q.put.run(t, packPages(list));
          for (let k = 0, from = 0; from < list.docs.length; k++, from += PASSAGE_BLOCK)
            q.putBlock.run(t, k, packPassageBlock(list, from, Math.min(list.docs.length, from + PASSAGE_BLOCK)));
        }
        if (!row) q.born.run(reversed(t));
      } else if (row) {
        q.drop.run(t);
        q.dropEnd.run(reversed(t));
      }
      done += runs.length;
      if (progress && done - told >= 1000) progress((told = done), total);
    }
    // New terms' ends, in order (a fresh index adds every term).
    this.#db.exec(
      'INSERT OR IGNORE INTO term_ends (reversed) SELECT reversed FROM temp.born_ends ORDER BY reversed; DELETE FROM temp.born_ends',
    );
    // The pages' lengths and lists change with their postings, in the same transaction: a run
    // stopped before it leaves the ones the postings were built from, which say which terms held
    // a page when the next run builds it again.
    this.#db.exec(`
      DELETE FROM page_terms WHERE page_id IN (SELECT page_id FROM temp.pending_pages WHERE length IS NULL);
      DELETE FROM page_term_lists WHERE page_id IN (SELECT page_id FROM temp.pending_pages WHERE length IS NULL);
      INSERT OR REPLACE INTO page_terms (page_id, length, terms)
        SELECT page_id, length, '' FROM temp.pending_pages WHERE length IS NOT NULL ORDER BY page_id;
      INSERT OR REPLACE INTO page_term_lists (page_id, terms)
        SELECT page_id, terms FROM temp.pending_pages WHERE length IS NOT NULL ORDER BY page_id;`);
    q.meta.run(POSTINGS_FORMAT);
    progress?.(total, total);
    this.#forget();
  }

  /** Makes ready for pages to be reported again after release(); outside a transaction. */
  open(): void {
    this.#runs.open();
  }

  /** Frees the disk the runs took (posting-runs.ts release()), once the caller has committed a
   * flush() or rolled back and discard()ed; outside a transaction. */
  release(): void {
    this.#runs.release();
  }

  /** A term's stored list (`data`) with its passages, which its rows of `term_passages` hold
   * when it is longer than a block (it has no rows there otherwise), and whether it had rows. */
  #stored(term: string, data: Uint8Array): { list: PostingList; blocks: boolean } {
    const list = unpackPostings(data);
    if (list.starts.length || !passagesApart(list.docs.length)) return { list, blocks: false };
    const blocks = (this.#q.passages.all(term) as { data: Uint8Array }[]).map((r) => r.data);
    return { list: joinPassages(list, blocks), blocks: blocks.length > 0 };
  }

  /** Forgets every page reported since the last flush, after the caller rolled back the
   * transaction they were reported in (the runs already committed go too). */
  discard(): void {
    this.#forget();
  }

  #forget(): void {
    this.#db.exec('DELETE FROM temp.pending_pages; DELETE FROM temp.born_ends');
    this.#runs.clear();
    this.#buffer.clear();
    this.#changed.clear();
    this.#stale.clear();
    this.#lastId = -1;
  }
}
