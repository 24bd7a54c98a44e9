import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

export type Migration = { version: number; name: string; up: string };

/**
 * Open a SQLite file in WAL mode (safe for several processes on one DATA_DIR: the service,
 * the portal and the command-line tools) and bring its schema up to date.
 */
export function openDatabase(file: string, migrations: readonly Migration[]): DatabaseSync {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db, migrations);
  return db;
}

/**
 * `statement`, set to give each row as an array of its columns, in order, not as an object: for
 * reads of a row per page of an index, where node:sqlite took about twice as long to make each
 * row an object as to step to it (decision 0152).
 */
export function rowsAsArrays(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

/** Apply, in one transaction each, every migration newer than the recorded schema version. */
export function migrate(db: DatabaseSync, migrations: readonly Migration[]): number {
  const versions = migrations.map((m) => m.version);
  if (versions.some((v, i) => i > 0 && v <= (versions[i - 1] as number))) {
    throw new Error('migrations must be listed in strictly increasing version order');
  }
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const current = row.v ?? 0;
  const newest = versions.at(-1) ?? 0;
  if (current > newest) {
    throw new Error(`database schema version ${current} is newer than this code knows (${newest}); upgrade Periscope`);
  }
  let applied = 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(m.up);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      db.exec('COMMIT');
      applied++;
    } catch (err) {
      db.exec('ROLLBACK');
      throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
    }
  }
  return applied;
}
