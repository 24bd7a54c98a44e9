import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { migrate } from '#shared/sqlite.ts';
import { HUB_ROWS, HubPages } from './hub-pages.ts';
import { PAGE_LANGUAGES } from './language-pages.ts';
import { indexMigrations } from './schema.ts';
import { PAGE_URLS } from './site-pages.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-signals-scans-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** An index file migrated up to schema `upTo` (all of them by default); its signals need no pages. */
function index(name: string, upTo = Infinity): DatabaseSync {
  const db = new DatabaseSync(join(dir, name), { enableForeignKeyConstraints: false });
  migrate(
    db,
    indexMigrations.filter((m) => m.version <= upTo),
  );
  return db;
}

const plan = (db: DatabaseSync, sql: string) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');

/** What a reader reads of every page once per index version, and the index each is read through. */
const SCANS = [
  { what: 'the hosts', sql: PAGE_URLS, through: 'signals_hosts' },
  { what: 'the languages', sql: PAGE_LANGUAGES, through: 'signals_languages' },
  { what: 'the hubs', sql: HUB_ROWS, through: 'signals_authority' },
];

describe("what a reader reads of every page's signals (decision 0152)", () => {
  it('is read through narrow indexes of its own, not the whole rows of signals, before and after SQLite has its statistics', () => {
    const db = index('now.db');
    const through = () => {
      for (const { what, sql, through } of SCANS) assert.match(plan(db, sql), new RegExp(`USING COVERING INDEX ${through}\\b`), what);
    };
    through();
    // As an index holds them: long rows, one page in a hundred a hub; then the statistics the
    // writer's last step leaves (PRAGMA optimize), taken whole.
    const add = db.prepare(
      "INSERT INTO signals (id, url, title, headings, lang_shares, markup_lang, inlinks, authority) VALUES (?, ?, ?, ?, '{\"en\":1}', 'en', 1, ?)",
    );
    db.exec('BEGIN');
    for (let id = 1; id <= 2000; id++)
      add.run(id, `https://docs.test/${id}.html`, `Page ${id}`.repeat(20), 'Heading '.repeat(60), id % 100 ? 0.9 : 7);
    db.exec('COMMIT');
    db.exec('ANALYZE');
    through();
    db.close();
  });

  it('scanned the whole rows in an index from before them (what the test above tells apart)', () => {
    const db = index('schema-15.db', 15);
    for (const { what, sql } of SCANS) assert.match(plan(db, sql), /^SCAN signals$/, what);
    db.close();
  });

  it('gives the hubs in order of id, as the index on authority does not', () => {
    const db = index('hubs.db');
    const add = db.prepare(
      "INSERT INTO signals (id, url, title, headings, lang_shares, inlinks, authority) VALUES (?, ?, '', '', '{}', 0, ?)",
    );
    for (const [id, authority] of [
      [1, 9],
      [2, 1],
      [3, 7],
      [4, 20],
      [5, 5],
      [6, 2],
    ] as const)
      add.run(id, `https://docs.test/${id}.html`, authority);
    const hubs = new HubPages(db).of(1, null);
    assert.deepEqual(hubs.ids, [1, 3, 4, 5]);
    assert.deepEqual([...hubs.authority], [9, 7, 20, 5]);
    db.close();
  });
});
