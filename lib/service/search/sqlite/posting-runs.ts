import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { grown } from '../typed-arrays.ts';
import { termOrder } from './posting-buffer.ts';
import { decodePostings, type PostingList } from './postings.ts';

/** A run's rows, read in the order they were added (by rowid), and where its reader is in the
 * current one: the term there and its list (`data`, a view of the row's bytes). */
type RunCursor = { run: number; rows: Iterator<{ data: Uint8Array }>; chunk: RowChunk; term: string; data: Uint8Array };

/**
 * Postings gathered by the postings writer (postings-writer.ts) and not yet merged into the index,
 * kept out of memory: each time the writer's buffer is full it adds one run, the buffered entries
 * of every term in term order (`termOrder`, in the blob format of postings.ts), to a temporary
 * table, which SQLite keeps in a file of its own; drain() reads them back a term at a time, in term
 * order, with the term's runs in the order they were added. So the writer's memory is bounded by its
 * buffer, not by the size of the corpus, and every entry is written twice (to a run, then to its
 * term's row) however many runs there are.
 *
 * A row holds many of a run's lists, one after the other with their terms (`RowChunk`), about
 * CHUNK_BYTES of them. With a row a list, SQLite stepped and node:sqlite copied a blob into a
 * buffer of its own once for each of the 149 million lists of a 10⁶ build, and the C library's
 * allocator was a third of the postings step at 10⁵ (decision 0145); read back, a row is now one
 * buffer and its lists are views of it (decision 0146: the postings step 28 % shorter at 10⁵).
 *
 * The table has no key: a run is appended to its end (keyed by term, every run was written into the
 * whole table, each one more slowly than the last once the table outgrew SQLite's cache; decision
 * 0084). drain() merges the runs as they stand, a cursor a run, each reading its rows in the order
 * they were added. Before, it had SQLite's sorter put every row in term order, writing all of them
 * to its own files once more (decision 0127: at 2 × 10⁴ pages the merge takes 28 % less time; at
 * 10⁵ about as long, with less memory and no copy of the runs on disk).
 *
 * The runs are a database of their own (RUNS, attached: a private file SQLite deletes when the
 * connection closes), not the connection's temporary one. drain() holds a cursor open on every run,
 * and SQLite walks a database's list of open cursors each time a statement opens one there or writes
 * to it: the postings writer adds every new term to a temporary table (born_ends) while it drains,
 * and at 10⁶ pages, with some 220 runs, that walk over cursors long out of the processor's caches
 * was a sixth of the postings step (decision 0129). The runs' pages have a cache of their own too.
 *
 * release() detaches the database once the caller has committed what drain() gave, which deletes
 * its file: at 10⁶ pages the runs take 20 GB, which the steps after the postings need (decision
 * 0130); open() attaches it again. One PostingRuns a connection.
 */
/** The schema name of the runs' database. */
const RUNS = 'posting_runs_store';
/** Its page cache, in KiB: each run's cursor reads its rows' pages in turn (a leaf, then a row's
 * overflow pages). */
const RUNS_CACHE_KB = 64 * 1024;
/** The bytes of lists a row holds, at least (the last of a run's rows may hold fewer): each run's
 * cursor holds its current row, 220 of them at 10⁶ pages. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The lists of one row of a run, one after the other: for each, the length of its term's UTF-8
 * bytes (uint32), the bytes, the length of its list (uint32) and the list as encodePostings writes
 * it (postings.ts), each of the four starting at a multiple of four bytes, so that the lists read
 * back are typed-array views of the row's own buffer.
 */
class RowChunk {
  #bytes: Uint8Array;
  #words: Uint32Array;
  /** Where the next list goes, or is read from. */
  at = 0;

  constructor(bytes: Uint8Array = new Uint8Array(CHUNK_BYTES * 2)) {
    if (bytes.byteOffset % 4) bytes = bytes.slice();
    this.#bytes = bytes;
    this.#words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  }

  /** The bytes written so far. */
  written(): Uint8Array {
    return this.#bytes.subarray(0, this.at);
  }

  /** Appends `term` and its list. */
  put(term: string, list: Uint8Array): void {
    const most = align(4 + 3 * term.length) + 4 + align(list.byteLength);
    if (this.at + most > this.#bytes.byteLength) {
      this.#bytes = grown(this.#bytes, Math.max(2 * this.#bytes.byteLength, align(this.at + most)));
      this.#words = new Uint32Array(this.#bytes.buffer, 0, this.#bytes.byteLength >> 2);
    }
    const { written } = ENCODER.encodeInto(term, this.#bytes.subarray(this.at + 4));
    this.#words[this.at >> 2] = written;
    this.at = align(this.at + 4 + written);
    this.#words[this.at >> 2] = list.byteLength;
    this.#bytes.set(list, this.at + 4);
    this.at = align(this.at + 4 + list.byteLength);
  }

  /** Whether every list has been read. */
  done(): boolean {
    return this.at >= this.#bytes.byteLength;
  }

  /** Reads the next list into `c`: its term and a view of its bytes. */
  next(c: { term: string; data: Uint8Array }): void {
    const length = this.#words[this.at >> 2] as number;
    c.term = DECODER.decode(this.#bytes.subarray(this.at + 4, this.at + 4 + length));
    this.at = align(this.at + 4 + length);
    const bytes = this.#words[this.at >> 2] as number;
    c.data = this.#bytes.subarray(this.at + 4, this.at + 4 + bytes);
    this.at = align(this.at + 4 + bytes);
  }
}

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
const align = (n: number) => (n + 3) & ~3;

export class PostingRuns {
  readonly #db: DatabaseSync;
  /** The statements on the runs' database while it is attached. */
  #q: Record<'add' | 'clear', StatementSync> | null = null;
  /** Each run's first and last rowid. */
  readonly #runs: [first: number, last: number][] = [];
  #first = 0;
  #last = 0;
  #lastTerm: string | null = null;
  #lists = 0;
  /** The current run's lists not yet in a row. */
  readonly #chunk = new RowChunk();

  /** Attaches the runs' database (outside a transaction, as ATTACH must be). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    this.open();
  }

  /** Attaches the runs' database again after release(), if it is not; outside a transaction. */
  open(): void {
    if (this.#q) return;
    const db = this.#db;
    // Temporary tables in a file (the default of node's SQLite build; set, as the bound relies on it).
    db.exec('PRAGMA temp_store = FILE');
    // '' is a private file of its own, deleted with the connection or when detached.
    if (!this.#attached()) db.exec(`ATTACH DATABASE '' AS ${RUNS}`);
    db.exec(`PRAGMA ${RUNS}.cache_size = -${RUNS_CACHE_KB}`);
    db.exec(`CREATE TABLE IF NOT EXISTS ${RUNS}.posting_runs (data BLOB NOT NULL)`);
    this.#q = {
      add: db.prepare(`INSERT INTO ${RUNS}.posting_runs (data) VALUES (?)`),
      clear: db.prepare(`DELETE FROM ${RUNS}.posting_runs`),
    };
  }

  #attached(): boolean {
    return (this.#db.prepare('SELECT name FROM pragma_database_list').all() as { name: string }[]).some((d) => d.name === RUNS);
  }

  /** Detaches the runs' database, deleting its file, when none are held; outside a transaction. */
  release(): void {
    if (this.#lists) throw new Error('posting runs: released while runs are held (drain or clear them first)');
    this.#q = null;
    if (this.#attached()) this.#db.exec(`DETACH DATABASE ${RUNS}`);
  }

  /** Adds a term's entries, `encoded` as encodePostings writes a list (postings.ts), to the current
   * run, whose terms come in term order (`termOrder`), each once; a run's pages come after those
   * of the runs before. */
  add(term: string, encoded: Uint8Array): void {
    if (!this.#q) throw new Error('posting runs: added to after release() (open() them again first)');
    if (this.#lastTerm !== null && termOrder(this.#lastTerm, term) >= 0)
      throw new Error(`posting runs: "${term}" added after "${this.#lastTerm}" in one run (terms come in order, once)`);
    this.#lastTerm = term;
    this.#chunk.put(term, encoded);
    if (this.#chunk.at >= CHUNK_BYTES) this.#row();
    this.#lists++;
  }

  /** The current run's lists not yet in a row, as its next row. */
  #row(): void {
    if (!this.#chunk.at) return;
    if (!this.#q) throw new Error('posting runs: added to after release() (open() them again first)');
    const id = Number(this.#q.add.run(this.#chunk.written()).lastInsertRowid);
    this.#chunk.at = 0;
    if (this.#first === 0) this.#first = id;
    this.#last = id;
  }

  /** Ends the current run: what is added next comes after it. */
  endRun(): void {
    this.#row();
    if (this.#first) this.#runs.push([this.#first, this.#last]);
    this.#first = this.#last = 0;
    this.#lastTerm = null;
  }

  /** How many lists (a term in a run) are held. */
  lists(): number {
    return this.#lists;
  }

  /** Every term with its runs, in term order, the runs in the order they were added; then none are left. */
  *drain(): Generator<[term: string, runs: PostingList[]]> {
    this.endRun();
    // A heap of the runs' cursors, by their current term, then by run.
    const heap: RunCursor[] = [];
    const before = (a: RunCursor, b: RunCursor) => termOrder(a.term, b.term) < 0 || (a.term === b.term && a.run < b.run);
    const down = (at: number) => {
      const c = heap[at] as RunCursor;
      for (;;) {
        let k = 2 * at + 1;
        if (k >= heap.length) break;
        if (k + 1 < heap.length && before(heap[k + 1] as RunCursor, heap[k] as RunCursor)) k++;
        if (!before(heap[k] as RunCursor, c)) break;
        heap[at] = heap[k] as RunCursor;
        at = k;
      }
      heap[at] = c;
    };
    try {
      this.#runs.forEach(([first, last], run) => {
        const read = this.#db.prepare(`SELECT data FROM ${RUNS}.posting_runs WHERE rowid BETWEEN ? AND ?`);
        const rows = read.iterate(first, last) as Iterator<{ data: Uint8Array }>;
        const row = rows.next();
        if (row.done) return;
        const c: RunCursor = { run, rows, chunk: new RowChunk(row.value.data), term: '', data: row.value.data };
        c.chunk.next(c);
        heap.push(c);
      });
      for (let k = (heap.length >> 1) - 1; k >= 0; k--) down(k);
      while (heap.length) {
        const term = (heap[0] as RunCursor).term;
        const runs: PostingList[] = [];
        while (heap.length && (heap[0] as RunCursor).term === term) {
          const c = heap[0] as RunCursor;
          runs.push(decodePostings(c.data));
          const row = c.chunk.done() ? c.rows.next() : null;
          if (row?.done) {
            const tail = heap.pop() as RunCursor;
            if (heap.length) heap[0] = tail;
          } else {
            if (row) c.chunk = new RowChunk(row.value.data);
            c.chunk.next(c);
          }
          if (heap.length) down(0);
        }
        yield [term, runs];
      }
    } finally {
      for (const c of heap) c.rows.return?.();
    }
    this.clear();
  }

  clear(): void {
    this.#q?.clear.run();
    this.#chunk.at = 0;
    this.#runs.length = 0;
    this.#first = this.#last = 0;
    this.#lastTerm = null;
    this.#lists = 0;
  }
}
