import type { DatabaseSync } from 'node:sqlite';
import pg, { type PoolClient } from 'pg';
import { inTransaction } from './postgres.ts';

/**
 * Copy tables of a migrated SQLite database into the same tables of a migrated, empty PostgreSQL
 * schema (decision 0090's "the same shape on both"): the way a deployment that outgrows one
 * machine takes its data along (`npm run move-to-postgres`).
 *
 * Columns are matched by name; PostgreSQL's identity columns (`seq`, which SQLite keeps as its
 * rowid) are left to PostgreSQL and rows go in in rowid order, so what was older stays older.
 * Values are converted where the column types differ: SQLite's 0/1 into BOOLEAN, blobs into BYTEA.
 */

/** One table to copy, and what to do to each row on the way (an owner's own rules, such as ending what cannot still be live). */
export type TableToCopy = { name: string; adapt?: (row: Row) => Row };
export type Row = Record<string, unknown>;

/** Why a copy cannot be made: the target is not empty, or the two schemas differ. */
export class CopyRefused extends Error {}

type Column = { name: string; type: string; identity: boolean };

/** Most parameters in one INSERT (PostgreSQL's limit is 65,535). */
const MAX_PARAMETERS = 30_000;

async function targetColumns(client: PoolClient, table: string): Promise<Column[]> {
  const { rows } = await client.query<{ column_name: string; data_type: string; is_identity: string }>(
    `SELECT column_name, data_type, is_identity FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => ({ name: r.column_name, type: r.data_type, identity: r.is_identity === 'YES' }));
}

function sourceColumns(db: DatabaseSync, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name);
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function convert(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value === 1 || value === 1n || value === true;
  if (type === 'bytea') return Buffer.from(value as Uint8Array);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * Refuse unless every table exists on both sides with the same columns (identity columns aside)
 * and the target's tables hold no row. Returns the columns to copy, by table.
 */
export async function checkCopy(source: DatabaseSync, client: PoolClient, tables: readonly TableToCopy[]): Promise<Map<string, Column[]>> {
  const plan = new Map<string, Column[]>();
  for (const { name } of tables) {
    const target = await targetColumns(client, name);
    if (target.length === 0) throw new CopyRefused(`PostgreSQL has no table ${name}: is its schema migrated?`);
    const copied = target.filter((c) => !c.identity);
    const from = sourceColumns(source, name);
    if (from.length === 0) throw new CopyRefused(`the SQLite database has no table ${name}`);
    const missing = copied.filter((c) => !from.includes(c.name)).map((c) => c.name);
    const extra = from.filter((c) => !copied.some((t) => t.name === c));
    if (missing.length || extra.length)
      throw new CopyRefused(
        `table ${name} differs: ${[missing.length ? `only PostgreSQL has ${missing.join(', ')}` : '', extra.length ? `only SQLite has ${extra.join(', ')}` : ''].filter(Boolean).join('; ')}`,
      );
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quote(name)}`);
    if (Number(rows[0]?.n) > 0)
      throw new CopyRefused(`PostgreSQL's table ${name} already holds ${rows[0]?.n} rows: copy into an empty database`);
    plan.set(name, copied);
  }
  return plan;
}

/**
 * Copy `tables`, in the order given (a table after those its foreign keys name), with the columns
 * checkCopy() found for each, inside the caller's transaction. Returns the rows copied, by table.
 */
async function copyTables(
  source: DatabaseSync,
  client: PoolClient,
  tables: readonly TableToCopy[],
  plan: Map<string, Column[]>,
): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  for (const table of tables) {
    const columns = plan.get(table.name)!;
    const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
    const names = columns.map((c) => quote(c.name)).join(', ');
    let batch: unknown[][] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const values = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
      await client.query(`INSERT INTO ${quote(table.name)} (${names}) VALUES ${values}`, batch.flat());
      batch = [];
    };
    let count = 0;
    const rows = source.prepare(`SELECT ${names} FROM ${quote(table.name)} ORDER BY rowid`).iterate() as Iterable<Row>;
    for (const read of rows) {
      const row = table.adapt ? table.adapt({ ...read }) : read;
      batch.push(columns.map((c) => convert(row[c.name], c.type)));
      count++;
      if (batch.length >= perInsert) await flush();
    }
    await flush();
    copied[table.name] = count;
  }
  return copied;
}

/** What one owner brings along: its SQLite database, how its PostgreSQL schema is migrated, its tables in order. */
export type MovePart = {
  owner: string;
  source: DatabaseSync;
  migrate: (pool: pg.Pool) => Promise<unknown>;
  tables: readonly TableToCopy[];
};

/**
 * Bring each part's PostgreSQL schema up to date, then copy every part's tables in one
 * transaction: all of it lands, or nothing does (a refusal of the second owner leaves the first
 * uncopied too). Deferrable foreign keys are checked at commit, so tables that name each other
 * both ways copy in either order. Returns the rows copied, by owner and table.
 */
export async function moveIntoPostgres(url: string, parts: readonly MovePart[]): Promise<Record<string, Record<string, number>>> {
  const pool = new pg.Pool({ connectionString: url, max: 1, application_name: 'periscope-move' });
  try {
    for (const part of parts) await part.migrate(pool);
    return await inTransaction(pool, async (client) => {
      await client.query('SET CONSTRAINTS ALL DEFERRED');
      // Every owner is checked before any row is written: a refusal of the second copies nothing of the first.
      const plans = [];
      for (const part of parts) plans.push(await checkCopy(part.source, client, part.tables));
      const copied: Record<string, Record<string, number>> = {};
      for (const [i, part] of parts.entries()) copied[part.owner] = await copyTables(part.source, client, part.tables, plans[i]!);
      return copied;
    });
  } finally {
    await pool.end();
  }
}
