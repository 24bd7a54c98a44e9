import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { SORT_RUN_KB, sortingInParallel } from './parallel-sort.ts';

const dir = mkdtempSync(join(tmpdir(), 'parallel-sort-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A database file (the sorter writes runs only beside one) whose connection is as the index writer sets it. */
function database(name: string): DatabaseSync {
  const db = new DatabaseSync(join(dir, name));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA temp_store = FILE; PRAGMA cache_size = -524288');
  return db;
}
const setting = (db: DatabaseSync, name: string) => Number((db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[name]);

/** 200,000 rows in an order of their own, about 9 MB: several sorted runs of 1 MB each. */
function staged(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE staged (page_id INTEGER NOT NULL, head TEXT NOT NULL, PRIMARY KEY (page_id, head)) WITHOUT ROWID;
    CREATE TABLE words (head TEXT NOT NULL, page_id INTEGER NOT NULL, PRIMARY KEY (head, page_id)) WITHOUT ROWID;
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199999)
    INSERT INTO staged SELECT i % 5000, printf('w%08d-%s', (i * 7919) % 200003, hex(i)) FROM n;`);
}
const merge = (db: DatabaseSync) => db.exec('INSERT INTO words SELECT head, page_id FROM staged WHERE true ORDER BY head, page_id');
const words = (db: DatabaseSync) =>
  db
    .prepare('SELECT head, page_id FROM words')
    .all()
    .map((r) => `${r.head as string} ${r.page_id as number}`);

describe('sortingInParallel', () => {
  it('sorts with the helper threads and the runs it is given, and then sets both back', () => {
    const db = database('settings.db');
    assert.equal(setting(db, 'threads'), 0, "node's SQLite starts with no helper threads");
    const seen = sortingInParallel(db, 2, () => [setting(db, 'threads'), setting(db, 'cache_size')]);
    assert.deepEqual(seen, [2, -SORT_RUN_KB]);
    assert.deepEqual([setting(db, 'threads'), setting(db, 'cache_size')], [0, -524288]);
    db.close();
  });

  it('sets them back when the sort fails, and passes the failure on', () => {
    const db = database('fails.db');
    db.exec('PRAGMA threads = 1');
    assert.throws(
      () =>
        sortingInParallel(db, 2, () => {
          db.exec('INSERT INTO missing VALUES (1)');
        }),
      /no such table: missing/,
    );
    assert.deepEqual([setting(db, 'threads'), setting(db, 'cache_size')], [1, -524288]);
    db.close();
  });

  it('refuses settings SQLite would misread', () => {
    const db = database('refuses.db');
    const nothing = () => 0;
    assert.throws(() => sortingInParallel(db, -1, nothing), /threads must be a whole number/);
    assert.throws(() => sortingInParallel(db, 1.5, nothing), /threads must be a whole number/);
    assert.throws(() => sortingInParallel(db, 2, nothing, 0), /runKb must be a positive whole number/);
    assert.equal(setting(db, 'cache_size'), -524288, 'nothing was changed');
    db.close();
  });

  it('gives the rows in the order one thread with one run gives them', () => {
    const one = database('one.db');
    staged(one);
    merge(one);
    const parallel = database('parallel.db');
    staged(parallel);
    sortingInParallel(parallel, 2, () => merge(parallel), 1024);
    const expected = words(one);
    assert.equal(expected.length, 200_000);
    assert.deepEqual(words(parallel), expected);
    one.close();
    parallel.close();
  });
});
