import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';

/**
 * For tests that compare two indexes: every table's rows of the index in `file`, digested (FTS5's
 * own shadow tables and the times of indexing and of migrating aside), as `N rows <sha256>`.
 */
export function indexContents(file: string): Map<string, string> {
  const db = new DatabaseSync(file, { readOnly: true });
  const out = new Map<string, string>();
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'fts_%' AND name NOT LIKE 'described_terms_%' AND name NOT LIKE 'sqlite_%'",
    )
    .all();
  for (const { name } of tables as { name: string }[]) {
    const columns = (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[])
      .map((c) => c.name)
      .filter((c) => c !== 'indexed_at' && c !== 'applied_at');
    const hash = createHash('sha256');
    let rows = 0;
    for (const row of db.prepare(`SELECT ${columns.join(', ')} FROM ${name} ORDER BY ${columns.join(', ')}`).iterate()) {
      rows++;
      for (const c of columns) {
        const v = (row as Record<string, unknown>)[c];
        hash.update(v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v)).update('\0');
      }
    }
    out.set(name, `${rows} rows ${hash.digest('hex')}`);
  }
  db.close();
  return out;
}
