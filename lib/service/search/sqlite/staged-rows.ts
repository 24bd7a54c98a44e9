import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** A table keyed by word and page (`defs`, `link_words`) and the table its rows wait in. */
export type StagedTable = {
  /** The table the queries read, keyed (head, page_id). */
  table: string;
  /** Where a run's rows wait, keyed (page_id, head) (schema 13). */
  staged: string;
  /** The table's index by page, which a merge into an empty table builds after its rows. */
  pageIndex: string;
  /** Its columns after `head` and `page_id`. */
  columns: readonly string[];
  /** What a row already in the table for the same word and page becomes (`ON CONFLICT DO ...`);
   * without, such a row fails the merge. */
  onConflict?: string;
};

/** A value of a staged row's column. */
export type StagedValue = string | number | Uint8Array | null;
/** A staged row of a page: its word, then its values in the order of the table's `columns`. */
export type StagedRow = readonly [head: string, ...values: StagedValue[]];

/** Rows one statement stages at most: a page's rows go in a statement of up to this many each,
 * as each statement run costs about as much again as the row it inserts (2.4 million rows took a
 * quarter to a third less time than with a statement a row; decision 0143). */
const ROWS_A_STATEMENT = 32;

/**
 * Rows of a table keyed by word, gathered in page order while a run stores its pages and moved
 * into the table in word order once, at the end of the run (decision 0124). A page's rows are
 * words spread over the whole table: inserted as the page comes, each lands at a random place of
 * a B-tree far larger than SQLite's cache, and each commit writes every database page they
 * dirtied (at 10⁵ pages 69 GB for a 4.8 GB index). Staged, they are appended; merged, SQLite sorts
 * them and writes each page of the table once.
 *
 * Staged rows are committed with the page, so a run stopped part-way leaves them for the next,
 * whose finish() merges them; a page stored again replaces its own (dropPage).
 */
export class StagedRows {
  readonly #db: DatabaseSync;
  readonly #spec: StagedTable;
  /** The statement inserting n rows, by n (made when first needed). */
  readonly #inserts: StatementSync[] = [];
  readonly #drop: StatementSync;
  /** A row's values: its word and the table's columns. */
  readonly #width: number;
  /** The arguments of the next statement, reused. */
  readonly #args: StagedValue[] = [];

  constructor(db: DatabaseSync, spec: StagedTable) {
    this.#db = db;
    this.#spec = spec;
    this.#width = 1 + spec.columns.length;
    this.#drop = db.prepare(`DELETE FROM ${spec.staged} WHERE page_id = ?`);
  }

  /** Stages the rows of page `id` (a page's words are distinct), in the open transaction. */
  addPage(id: number, rows: Iterable<StagedRow>): void {
    const args = this.#args;
    let n = 0;
    try {
      for (const row of rows) {
        if (row.length !== this.#width)
          throw new Error(
            `staged rows of ${this.#spec.staged}: a row of ${row.length} values where ${this.#width} go (head, ${this.#spec.columns.join(', ')})`,
          );
        args.push(id, ...row);
        if (++n === ROWS_A_STATEMENT) {
          this.#insert(n).run(...args);
          args.length = n = 0;
        }
      }
      if (n) this.#insert(n).run(...args);
    } finally {
      args.length = 0;
    }
  }

  /** The statement inserting `n` rows. */
  #insert(n: number): StatementSync {
    const made = this.#inserts[n];
    if (made) return made;
    const columns = ['page_id', 'head', ...this.#spec.columns];
    const row = `(${columns.map(() => '?').join(', ')})`;
    const insert = this.#db.prepare(`INSERT INTO ${this.#spec.staged} (${columns.join(', ')}) VALUES ${Array(n).fill(row).join(', ')}`);
    this.#inserts[n] = insert;
    return insert;
  }

  /** Forgets the rows staged for page `id` (stored again, or gone). */
  dropPage(id: number): void {
    this.#drop.run(id);
  }

  /** Moves every staged row into the table, in the table's key order, in the open transaction. An
   * empty table (a new index) gets its page index built after its rows, as CREATE INDEX sorts
   * them, instead of kept up row by row at random places. Returns how many rows moved. */
  merge(): number {
    const { table, staged, pageIndex, columns, onConflict } = this.#spec;
    const db = this.#db;
    if (db.prepare(`SELECT 1 FROM ${staged} LIMIT 1`).get() === undefined) return 0;
    const empty = db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() === undefined;
    const index = empty
      ? (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").get(pageIndex) as { sql: string } | undefined)
      : undefined;
    if (index) db.exec(`DROP INDEX ${pageIndex}`);
    const all = ['head', 'page_id', ...columns].join(', ');
    // `WHERE true`: an INSERT ... SELECT with an upsert needs a WHERE clause to parse.
    const upsert = onConflict ? ` ON CONFLICT DO ${onConflict}` : '';
    const moved = db
      .prepare(`INSERT INTO ${table} (${all}) SELECT ${all} FROM ${staged} WHERE true ORDER BY head, page_id${upsert}`)
      .run().changes;
    db.exec(`DELETE FROM ${staged}`);
    if (index) db.exec(index.sql);
    return Number(moved);
  }
}
