import { DatabaseSync } from 'node:sqlite';
import { BlockedList } from './blocked-postings.ts';
import { packPostings } from './packed-postings.ts';
import { PACKED_POSTINGS_FORMAT } from './postings.ts';

/**
 * For the tests of older indexes: makes the index in `file` what the version before decision 0089
 * wrote (schema 10): each posting list packed whole, not in blocks.
 */
export function asWrittenBefore0089(file: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    const put = db.prepare('UPDATE postings SET data = ? WHERE term = ?');
    for (const r of db.prepare('SELECT term, data FROM postings').all())
      put.run(packPostings(new BlockedList(r.data as Uint8Array).all()), r.term as string);
    db.prepare("UPDATE search_meta SET value = ? WHERE key = 'postings'").run(PACKED_POSTINGS_FORMAT);
    db.exec('DELETE FROM schema_migrations WHERE version >= 11; COMMIT');
  } finally {
    db.close();
  }
}
