import { DatabaseSync } from 'node:sqlite';
import { ChunkRow } from './link-word-chunks.ts';

/**
 * For the tests of older indexes: the link words of the index open in `db` as the versions before
 * decision 0120 kept them (a row of `link_words` a word and page), its chunks and their format gone,
 * and its schema marked 10. Inside the caller's transaction.
 */
export function linkWordsAsBefore0120(db: DatabaseSync): void {
  const put = db.prepare('INSERT INTO link_words (head, page_id, mask, blocks) VALUES (?, ?, ?, ?)');
  for (const r of db.prepare('SELECT head, chunk, data FROM link_word_chunks').all() as { head: string; chunk: number; data: Uint8Array }[])
    for (const e of new ChunkRow(r.data, r.chunk).entries())
      put.run(r.head, e.id, e.mask, e.blocks.length ? new Uint8Array(e.blocks.buffer) : null);
  db.exec(
    "DROP TABLE link_word_chunks; DELETE FROM search_meta WHERE key = 'link_words'; DELETE FROM schema_migrations WHERE version >= 11;",
  );
}

/** The index in `file` as the version before decision 0120 wrote it (schema 10). */
export function asWrittenBefore0120(file: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    linkWordsAsBefore0120(db);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
