import type { DatabaseSync } from 'node:sqlite';

/**
 * The most rows SQLite's sorter holds in memory before it sorts them and writes them out as one
 * sorted run, in KiB (the sorter takes it from the main database's `cache_size`, decision 0142).
 * At 10⁵ pages, merging the staged word rows (25 million, `StagedRows.merge`) with two helper
 * threads took 34 s with runs of 16 MB, 35 s with 52 MB and 42 s with 128 MB; at four times those
 * rows, 151 s with 16 MB and 149 s with 64 MB, against 308 s as the index writer had it (512 MB,
 * no helper threads). Larger runs are fewer to merge at the end, smaller ones sort within the
 * processor's caches.
 */
export const SORT_RUN_KB = 64 * 1024;

/** What `PRAGMA <name>` answers, as a number. */
function pragma(db: DatabaseSync, name: 'threads' | 'cache_size'): number {
  const row = db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>;
  return Number(row[name]);
}

/**
 * Runs `sort`, statements whose work is one large sort (an `INSERT ... SELECT ... ORDER BY` of
 * millions of rows, a `CREATE INDEX` on them), with SQLite's sorter sorting on `threads` helper
 * threads and in runs of `runKb`.
 *
 * SQLite's sorter gathers rows until it holds the connection's `cache_size` of them, sorts them (a
 * merge sort of linked records), writes them to a file as a sorted run, and at the end merges the
 * runs. Node's build of SQLite starts every connection with `PRAGMA threads = 0`: the connection's
 * own thread does all of it. And the index writer's cache of 512 MB made each run one sort of about
 * 10 million records strewn over 512 MB of memory: at 10⁵ pages, most of a minute of one core,
 * while the other stood idle. With helper threads, each run is sorted and written by a helper while
 * the connection's thread reads the next rows, and the runs are merged by helpers too (decision
 * 0142). `threads` is how many helpers at most (SQLite caps it at 8); 0 keeps the sort in this
 * thread, only in smaller runs.
 *
 * The page cache is smaller while `sort` runs, so it should not be the one to read much else: a
 * write it makes spills its pages to the log sooner, which a sort's appended rows (each page
 * written once) do not mind. Both settings are restored afterwards, when `sort` throws as well.
 */
export function sortingInParallel<T>(db: DatabaseSync, threads: number, sort: () => T, runKb = SORT_RUN_KB): T {
  if (!Number.isInteger(threads) || threads < 0) throw new RangeError(`threads must be a whole number, not ${threads}`);
  if (!Number.isInteger(runKb) || runKb < 1) throw new RangeError(`runKb must be a positive whole number, not ${runKb}`);
  const threadsBefore = pragma(db, 'threads');
  const cacheBefore = pragma(db, 'cache_size');
  db.exec(`PRAGMA threads = ${threads}; PRAGMA cache_size = -${runKb}`);
  try {
    return sort();
  } finally {
    db.exec(`PRAGMA threads = ${threadsBefore}; PRAGMA cache_size = ${cacheBefore}`);
  }
}
