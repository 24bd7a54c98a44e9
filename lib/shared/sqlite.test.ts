import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { migrate, openDatabase, type Migration } from './sqlite.ts';

const v1: Migration = { version: 1, name: 'one', up: 'CREATE TABLE a (x INTEGER)' };
const v2: Migration = { version: 2, name: 'two', up: 'ALTER TABLE a ADD COLUMN y TEXT' };

describe('migrate', () => {
  it('applies each migration once, in order, and records it', () => {
    const db = new DatabaseSync(':memory:');
    assert.equal(migrate(db, [v1]), 1);
    assert.equal(migrate(db, [v1, v2]), 1);
    assert.equal(migrate(db, [v1, v2]), 0);
    db.exec("INSERT INTO a (x, y) VALUES (1, 'ok')");
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [
        { version: 1, name: 'one' },
        { version: 2, name: 'two' },
      ],
    );
  });

  it('rolls a failing migration back whole and names it', () => {
    const db = new DatabaseSync(':memory:');
    migrate(db, [v1]);
    const bad: Migration = { version: 2, name: 'bad', up: 'CREATE TABLE b (x); INSERT INTO nowhere VALUES (1)' };
    assert.throws(() => migrate(db, [v1, bad]), /migration 2 \(bad\) failed/);
    assert.equal(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'b'").get()?.n, 0);
    assert.equal(db.prepare('SELECT max(version) AS v FROM schema_migrations').get()?.v, 1);
  });

  it('refuses a database newer than the code, and unordered lists', () => {
    const db = new DatabaseSync(':memory:');
    migrate(db, [v1, v2]);
    assert.throws(() => migrate(db, [v1]), /newer than this code knows/);
    assert.throws(() => migrate(new DatabaseSync(':memory:'), [v2, v1]), /strictly increasing/);
  });

  it('opens files in WAL mode, creating the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-db-'));
    try {
      const db = openDatabase(join(dir, 'nested', 'x.db'), [v1]);
      assert.equal(db.prepare('PRAGMA journal_mode').get()?.journal_mode, 'wal');
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
