import { DatabaseSync } from 'node:sqlite';
import { snippetPassages } from '../snippet.ts';
import { joinPassages, packPostings, unpackPostings } from './packed-postings.ts';
import { unpackText } from './packed-text.ts';
import { PageText } from './page-text.ts';
import { encodePostings, PACKED_POSTINGS_FORMAT, RAW_POSTINGS_FORMAT } from './postings.ts';
import { DEF_NEAR, PASSAGE_SLOTS, SIGNALS_INDEXES } from './schema.ts';
import { fillFullText } from './writer.ts';

/** SQL that drops the indexes of `signals` (migration 16), which no index from before it has. */
export const DROP_SIGNALS_INDEXES = Object.keys(SIGNALS_INDEXES)
  .map((name) => `DROP INDEX ${name};`)
  .join(' ');

/**
 * For the tests of older indexes: makes the postings' tables of `db` (its rows kept) what the
 * versions before decision 0145 made, WITHOUT ROWID as migrations 4 and 15 created them, where this
 * version's writer makes them rowid tables with an index (schema.ts POSTINGS_TABLES).
 */
export function postingsTablesBefore0145(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE postings_before (term TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
    INSERT INTO postings_before SELECT term, data FROM postings;
    CREATE TABLE term_passages_before (term TEXT NOT NULL, block INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, block)) WITHOUT ROWID;
    INSERT INTO term_passages_before SELECT term, block, data FROM term_passages;
    DROP TABLE postings; DROP TABLE term_passages;
    ALTER TABLE postings_before RENAME TO postings; ALTER TABLE term_passages_before RENAME TO term_passages;`);
}

/**
 * For the tests of older indexes: makes the index in `file` what the version before decision 0085
 * wrote (schema 9). FTS5 rows for every page; each page's text in `pages.body` and its snippet
 * passages as rows; its list of terms in `page_terms.terms`; the postings raw, each list with its
 * passages; no stored definitions, and the words near index anchors as definitions. `rawPostings:
 * false` leaves the postings packed, with their passages (to test the rest alone). Tests of still older indexes go on from
 * here, taking away what came before that.
 */
export function asWrittenBefore0085(file: string, { rawPostings = true }: { rawPostings?: boolean } = {}): void {
  fillFullText(file);
  const db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    const text = new PageText(db);
    const body = db.prepare('UPDATE pages SET body = ? WHERE id = ?');
    const passage = db.prepare('INSERT INTO passages (id, block, extra) VALUES (?, ?, ?)');
    for (const r of db.prepare('SELECT id, title, description FROM pages').all() as { id: number; title: string; description: string }[]) {
      const whole = text.whole(r.id) ?? '';
      body.run(whole, r.id);
      for (const p of snippetPassages(whole, r.description, r.title, PASSAGE_SLOTS).passages)
        passage.run(r.id * PASSAGE_SLOTS + p.ord, p.passage.block, p.passage.extra);
    }
    const terms = db.prepare('UPDATE page_terms SET terms = ? WHERE page_id = ?');
    for (const r of db.prepare('SELECT page_id, terms FROM page_term_lists').all())
      terms.run(unpackText(r.terms as Uint8Array), r.page_id as number);
    // Each list with its passages, raw, or packed as the version before they were stored apart
    // packed them (schema 13).
    const postings = db.prepare('UPDATE postings SET data = ? WHERE term = ?');
    const blocks = db.prepare('SELECT data FROM term_passages WHERE term = ? ORDER BY block');
    for (const r of db.prepare('SELECT term, data FROM postings').all()) {
      const term = r.term as string;
      const list = joinPassages(
        unpackPostings(r.data as Uint8Array),
        (blocks.all(term) as { data: Uint8Array }[]).map((b) => b.data),
      );
      postings.run(rawPostings ? encodePostings(list) : packPostings(list), term);
    }
    db.prepare("UPDATE search_meta SET value = ? WHERE key = 'postings'").run(rawPostings ? RAW_POSTINGS_FORMAT : PACKED_POSTINGS_FORMAT);
    postingsTablesBefore0145(db);
    // The words near index anchors as definitions of their own.
    const near = db.prepare(
      `INSERT INTO defs (head, page_id, weight, kind) VALUES (?, ?, 0, ${DEF_NEAR}) ON CONFLICT DO UPDATE SET kind = kind | ${DEF_NEAR}`,
    );
    for (const r of db.prepare('SELECT page_id, words FROM near_words').all())
      for (const word of (r.words as string).split(' ')) near.run(word, r.page_id as number);
    db.exec(`DROP TABLE page_text; DROP TABLE page_term_lists; DROP TABLE described_vocab; DROP TABLE described_terms;
      DROP TABLE definitions; DROP TABLE near_words; DROP TABLE defs_staged; DROP TABLE link_words_staged; DROP TABLE term_passages;
      DROP TABLE described_lists; ALTER TABLE signals DROP COLUMN near_signature; ${DROP_SIGNALS_INDEXES}
      DELETE FROM search_meta WHERE key IN ('definitions', 'near_words', 'described_lists', 'near_signatures');
      DELETE FROM schema_migrations WHERE version >= 10;`);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
