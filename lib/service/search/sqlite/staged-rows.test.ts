import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { StagedRows, type StagedTable } from './staged-rows.ts';

/** A table keyed by word as `defs` is, with its page index, and the table its rows wait in. */
function database(): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  db.exec(`
    CREATE TABLE words (head TEXT NOT NULL, page_id INTEGER NOT NULL, weight REAL NOT NULL, PRIMARY KEY (head, page_id)) WITHOUT ROWID;
    CREATE INDEX words_page ON words(page_id);
    CREATE TABLE words_staged (page_id INTEGER NOT NULL, head TEXT NOT NULL, weight REAL NOT NULL, PRIMARY KEY (page_id, head)) WITHOUT ROWID;`);
  return db;
}

const SPEC: StagedTable = { table: 'words', staged: 'words_staged', pageIndex: 'words_page', columns: ['weight'] };
const rows = (db: DatabaseSync, table: string) =>
  db
    .prepare(`SELECT head, page_id, weight FROM ${table} ORDER BY head, page_id`)
    .all()
    .map((r) => ({ ...r }));
const indexSql = (db: DatabaseSync) =>
  (db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'words_page'").get() as { sql: string } | undefined)?.sql;

describe('rows staged in page order', () => {
  it('reach the table at the merge, not before, and leave the staged table empty', () => {
    const db = database();
    const staged = new StagedRows(db, SPEC);
    staged.addPage(1, [
      ['zebra', 1],
      ['apple', 0.5],
    ]);
    staged.addPage(2, [['mango', 1]]);
    assert.deepEqual(rows(db, 'words'), []);
    assert.equal(staged.merge(), 3);
    assert.deepEqual(rows(db, 'words'), [
      { head: 'apple', page_id: 1, weight: 0.5 },
      { head: 'mango', page_id: 2, weight: 1 },
      { head: 'zebra', page_id: 1, weight: 1 },
    ]);
    assert.deepEqual(rows(db, 'words_staged'), []);
    assert.equal(staged.merge(), 0, 'nothing staged, nothing moved');
  });

  it('of a page of any number, several to a statement, are each staged once with their own values', () => {
    const db = database();
    const staged = new StagedRows(db, SPEC);
    // Around the rows a statement takes (32): none, one, one short, as many, one more, two and one.
    const counts = [0, 1, 31, 32, 33, 65];
    counts.forEach((n, page) =>
      staged.addPage(
        page,
        Array.from({ length: n }, (_, k) => [`w${k}`, page + k / 100] as const),
      ),
    );
    const want = counts.flatMap((n, page) => Array.from({ length: n }, (_, k) => `${page} w${k} ${page + k / 100}`));
    const got = (
      db.prepare('SELECT page_id, head, weight FROM words_staged').all() as { page_id: number; head: string; weight: number }[]
    ).map((r) => `${r.page_id} ${r.head} ${r.weight}`);
    assert.deepEqual(got.sort(), want.sort());
  });

  it('refuse a row of the wrong width, and a page with a word twice, staging none of that statement', () => {
    const db = database();
    const staged = new StagedRows(db, SPEC);
    assert.throws(
      () => staged.addPage(1, [['zebra', 1, 2] as unknown as [string, number]]),
      /a row of 3 values where 2 go \(head, weight\)/,
    );
    assert.throws(() => staged.addPage(1, [['zebra'] as unknown as [string, number]]), /a row of 1 values where 2 go/);
    assert.throws(
      () =>
        staged.addPage(2, [
          ['apple', 1],
          ['apple', 2],
        ]),
      /UNIQUE constraint failed/,
    );
    assert.deepEqual(rows(db, 'words_staged'), []);
    // What it was given to bind is not carried into the next page's statement.
    staged.addPage(3, [['mango', 1]]);
    assert.deepEqual(rows(db, 'words_staged'), [{ head: 'mango', page_id: 3, weight: 1 }]);
  });

  it('of a page stored again are only its last', () => {
    const db = database();
    const staged = new StagedRows(db, SPEC);
    staged.addPage(1, [['zebra', 1]]);
    staged.addPage(2, [['mango', 1]]);
    staged.dropPage(1);
    staged.addPage(1, [['apple', 1]]);
    staged.merge();
    assert.deepEqual(
      rows(db, 'words').map((r) => `${r.head} ${r.page_id}`),
      ['apple 1', 'mango 2'],
    );
  });

  it('build an empty table’s page index after its rows, as it was', () => {
    const db = database();
    const before = indexSql(db);
    const staged = new StagedRows(db, SPEC);
    for (let page = 1; page <= 50; page++) staged.addPage(page, [[`w${page % 7}`, page]]);
    staged.merge();
    assert.equal(indexSql(db), before);
    // The index holds every row: a query by page reads it.
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT head FROM words WHERE page_id = 9').all() as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join(' '), /words_page/);
    assert.deepEqual(
      db
        .prepare('SELECT head FROM words INDEXED BY words_page WHERE page_id = 9')
        .all()
        .map((r) => r.head),
      ['w2'],
    );
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM words INDEXED BY words_page').get() as { n: number }).n, 50);
  });

  it('join a table with rows as its conflict clause says, its page index kept', () => {
    const db = database();
    db.exec("INSERT INTO words VALUES ('zebra', 1, 0.2), ('apple', 3, 1)");
    const staged = new StagedRows(db, { ...SPEC, onConflict: 'UPDATE SET weight = max(weight, excluded.weight)' });
    staged.addPage(1, [['zebra', 0.9]]);
    staged.addPage(2, [['zebra', 0.4]]);
    assert.equal(staged.merge(), 2);
    assert.deepEqual(rows(db, 'words'), [
      { head: 'apple', page_id: 3, weight: 1 },
      { head: 'zebra', page_id: 1, weight: 0.9 },
      { head: 'zebra', page_id: 2, weight: 0.4 },
    ]);
    assert.ok(indexSql(db));
  });

  it('without a conflict clause, fail the merge on a row the table has, and stay staged when it rolls back', () => {
    const db = database();
    db.exec("INSERT INTO words VALUES ('zebra', 1, 0.2)");
    const staged = new StagedRows(db, SPEC);
    staged.addPage(1, [['zebra', 0.9]]);
    staged.addPage(2, [['apple', 1]]);
    db.exec('BEGIN');
    assert.throws(() => staged.merge(), /UNIQUE constraint failed/);
    db.exec('ROLLBACK');
    assert.equal(rows(db, 'words_staged').length, 2);
    assert.deepEqual(rows(db, 'words'), [{ head: 'zebra', page_id: 1, weight: 0.2 }]);
  });
});
