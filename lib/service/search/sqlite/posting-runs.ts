import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { decodePostings, encodePostings, type PostingList } from './postings.ts';

/**
 * Postings gathered by the postings writer (postings-writer.ts) and not yet merged into the index,
 * kept out of memory: each time the writer's buffer is full it adds one run, the buffered entries
 * of every term (in the blob format of postings.ts), to a temporary table, which SQLite keeps in a
 * file of its own; drain() reads them back a term at a time, in term order, with the term's runs
 * in the order they were added. So the writer's memory is bounded by its buffer, not by the size of
 * the corpus, and every entry is written twice (to a run, then to its term's row) however many runs
 * there are.
 *
 * The table has no key: a run is appended to its end, and drain() has SQLite's sorter (an external
 * merge sort) put the rows in term order once. Keyed by term, every run was written into the
 * whole table, each one more slowly than the last once the table outgrew SQLite's cache (decision
 * 0084, session 18).
 */
export class PostingRuns {
  readonly #q: Record<'add' | 'read' | 'clear', StatementSync>;
  #run = 0;
  #lists = 0;

  constructor(db: DatabaseSync) {
    // Temporary tables in a file (the default of node's SQLite build; set, as the bound relies on it).
    db.exec('PRAGMA temp_store = FILE');
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS posting_runs (
      term TEXT NOT NULL,
      run INTEGER NOT NULL,
      data BLOB NOT NULL
    )`);
    this.#q = {
      add: db.prepare('INSERT INTO temp.posting_runs (term, run, data) VALUES (?, ?, ?)'),
      read: db.prepare('SELECT term, data FROM temp.posting_runs ORDER BY term, run'),
      clear: db.prepare('DELETE FROM temp.posting_runs'),
    };
  }

  /** Adds a term's entries to the current run; a run's pages come after those of the runs before. */
  add(term: string, list: PostingList): void {
    this.#q.add.run(term, this.#run, encodePostings(list));
    this.#lists++;
  }

  /** Ends the current run: what is added next comes after it. */
  endRun(): void {
    this.#run++;
  }

  /** How many lists (a term in a run) are held. */
  lists(): number {
    return this.#lists;
  }

  /** Every term with its runs, in term order, the runs in the order they were added; then none are left. */
  *drain(): Generator<[term: string, runs: PostingList[]]> {
    let term: string | null = null;
    let runs: PostingList[] = [];
    for (const row of this.#q.read.iterate() as Iterable<{ term: string; data: Uint8Array }>) {
      if (row.term !== term) {
        if (term !== null) yield [term, runs];
        term = row.term;
        runs = [];
      }
      runs.push(decodePostings(row.data));
    }
    if (term !== null) yield [term, runs];
    this.clear();
  }

  clear(): void {
    this.#q.clear.run();
    this.#run = 0;
    this.#lists = 0;
  }
}
