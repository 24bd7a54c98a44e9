import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { commitThenCheckpoint } from './commit-then-checkpoint.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes written by fill(): 2,000 database pages of 4 KiB, twice the default autocheckpoint's 1,000. */
const FILLED = 8 * 1024 * 1024;

/** A database in WAL mode, with a transaction open that writes FILLED bytes. */
function filling(name: string): { db: DatabaseSync; file: string } {
  const file = join(dir, `${name}.db`);
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (data BLOB)');
  db.exec('BEGIN IMMEDIATE');
  const insert = db.prepare('INSERT INTO t (data) VALUES (?)');
  for (let i = 0; i < FILLED / 65536; i++) insert.run(new Uint8Array(65536).fill(i));
  return { db, file };
}

const size = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
const autocheckpoint = (db: DatabaseSync): number =>
  (db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

describe('a commit checkpointed after', () => {
  it('copies the log into the database within the commit when left to SQLite (what the helper holds off)', () => {
    const { db, file } = filling('plain');
    db.exec('COMMIT');
    assert.ok(size(file) >= FILLED, `the commit's own checkpoint grew the database (${size(file)} bytes)`);
    db.close();
  });

  it('runs its work between the commit and the checkpoint, then truncates the log and restores the setting', () => {
    const { db, file } = filling('held');
    let between: { database: number; log: number; setting: number } | null = null;
    commitThenCheckpoint(
      db,
      () => db.exec('COMMIT'),
      () => (between = { database: size(file), log: size(`${file}-wal`), setting: autocheckpoint(db) }),
    );
    assert.ok(between, 'the work ran');
    const { database, log, setting } = between as { database: number; log: number; setting: number };
    assert.ok(database < FILLED / 4, `no checkpoint before the work (database ${database} bytes)`);
    assert.ok(log >= FILLED, `the commit is in the log (${log} bytes)`);
    assert.equal(setting, 0);
    assert.ok(size(file) >= FILLED, `checkpointed after (database ${size(file)} bytes)`);
    assert.equal(size(`${file}-wal`), 0, 'the log is truncated');
    assert.equal(autocheckpoint(db), 1000);
    assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, FILLED / 65536);
    db.close();
  });

  it('restores a setting of its own, and runs no checkpoint, when the work fails', () => {
    const { db, file } = filling('failed');
    db.exec('PRAGMA wal_autocheckpoint = 250');
    assert.throws(
      () =>
        commitThenCheckpoint(
          db,
          () => db.exec('COMMIT'),
          () => {
            throw new Error('the disk is full');
          },
        ),
      /the disk is full/,
    );
    assert.equal(autocheckpoint(db), 250);
    assert.ok(size(file) < FILLED / 4, 'no checkpoint ran');
    assert.ok(size(`${file}-wal`) >= FILLED, 'what was committed stays committed, in the log');
    db.close();
    const again = new DatabaseSync(file);
    assert.equal((again.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, FILLED / 65536);
    again.close();
  });

  it('leaves the setting as it was when the commit itself fails', () => {
    const { db } = filling('refused');
    db.exec('COMMIT');
    assert.throws(
      () =>
        commitThenCheckpoint(
          db,
          () => db.exec('COMMIT'),
          () => assert.fail('the work runs only after a commit'),
        ),
      /no transaction is active/,
    );
    assert.equal(autocheckpoint(db), 1000);
    db.close();
  });
});
