import type { DatabaseSync } from 'node:sqlite';

/**
 * A commit whose write-ahead log is copied into the database only after `meanwhile` has run.
 *
 * SQLite copies the log into the database (a checkpoint) within the commit that takes the log past
 * `wal_autocheckpoint` pages, so while it copies, the disk holds the log, the database grown by what
 * the log holds, and whatever else is still there. The index writer's postings' commit at 10⁶ pages
 * wrote 14.4 GB of log and grew the index from 28.6 to 42.5 GB while the postings' runs (19.3 GB,
 * and 4.2 GB of temporary files) were still on disk: free disk fell to 5.2 GB (decision 0138).
 * With the automatic checkpoint held off for the commit, `meanwhile` deletes the runs first
 * (decision 0140).
 *
 * The checkpoint after truncates the log, so the steps that follow start with it empty. A reader
 * that holds an older snapshot (a server reading DATA_DIR's index while it is built) makes it wait
 * the busy timeout and then leave what it could not copy to the next commit's checkpoint, as any
 * checkpoint would. The setting is restored even when the commit or `meanwhile` fails, and then no
 * checkpoint is run here.
 */
export function commitThenCheckpoint(db: DatabaseSync, commit: () => void, meanwhile: () => void): void {
  const pages = (db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
  db.exec('PRAGMA wal_autocheckpoint = 0');
  try {
    commit();
    meanwhile();
  } finally {
    db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
  }
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}
