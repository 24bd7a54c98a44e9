import { DatabaseSync } from 'node:sqlite';
import { unpackPostings } from '#service/search/sqlite/packed-postings.ts';
import { unpackText } from '#service/search/sqlite/packed-text.ts';
import { encodePostings, RAW_POSTINGS_FORMAT } from '#service/search/sqlite/postings.ts';
import { SqliteIndexWriter } from '#service/search/sqlite/writer.ts';

/**
 * Makes the index in `file` what the version before decision 0085 wrote (schema 9): FTS5 rows for
 * every page, each page's text and list of terms unpacked, its postings raw. Tests of an older
 * index go on from here, taking away what came before that.
 */
export function asWrittenBefore0085(file: string): void {
  // The writer keeps FTS5 rows with `fullText`, for every page it builds again: all of them, once
  // the postings are marked stale.
  let db = new DatabaseSync(file);
  db.exec("DELETE FROM search_meta WHERE key = 'postings'");
  db.close();
  const writer = new SqliteIndexWriter(file, { fullText: true });
  writer.finish();
  writer.close();
  db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    const body = db.prepare('UPDATE pages SET body = ? WHERE id = ?');
    for (const r of db.prepare('SELECT id, body_z FROM pages').all()) body.run(unpackText(r.body_z as Uint8Array), r.id as number);
    const terms = db.prepare('UPDATE page_terms SET terms = ? WHERE page_id = ?');
    for (const r of db.prepare('SELECT page_id, terms FROM page_term_lists').all())
      terms.run(unpackText(r.terms as Uint8Array), r.page_id as number);
    const postings = db.prepare('UPDATE postings SET data = ? WHERE term = ?');
    for (const r of db.prepare('SELECT term, data FROM postings').all())
      postings.run(encodePostings(unpackPostings(r.data as Uint8Array)), r.term as string);
    db.prepare("UPDATE search_meta SET value = ? WHERE key = 'postings'").run(RAW_POSTINGS_FORMAT);
    db.exec('ALTER TABLE pages DROP COLUMN body_z; DROP TABLE page_term_lists; DELETE FROM schema_migrations WHERE version >= 10;');
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
