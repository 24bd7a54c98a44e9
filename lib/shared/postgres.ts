import type { Pool, PoolClient } from 'pg';
import type { Migration } from './sqlite.ts';

/**
 * PostgreSQL plumbing both owners use (the portal's data, the service's keys and browser history):
 * checking a DATABASE_URL, and applying numbered migrations once even when several nodes start
 * at the same moment (decision 0090).
 */

const SCHEMES = new Set(['postgres:', 'postgresql:']);

/**
 * Why `url` is not a usable PostgreSQL address, or null when it is: a postgres:// or
 * postgresql:// URL with a host (or a socket directory in `?host=`) and a database name.
 */
export function postgresUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a URL such as postgres://user:password@db.example:5432/periscope';
  }
  if (!SCHEMES.has(u.protocol)) return 'must start with postgres:// or postgresql://';
  if (!u.hostname && !u.searchParams.get('host')) return 'must name a host (postgres://user:password@HOST:5432/periscope)';
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) return 'must name one database after the host (postgres://…/periscope)';
  if (u.hash) return 'must not carry a fragment';
  return null;
}

/** The SQLSTATE of a PostgreSQL error, if `err` is one. */
export const sqlState = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    ? (err as { code: string }).code
    : undefined;

/** The constraint a PostgreSQL error names (unique, check or foreign key), if any. */
export const violatedConstraint = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && typeof (err as { constraint?: unknown }).constraint === 'string'
    ? (err as { constraint: string }).constraint
    : undefined;

/** unique_violation */
export const UNIQUE_VIOLATION = '23505';
/** Errors after which a whole transaction may simply be run again: serialization failure, deadlock. */
export const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Apply every migration newer than the recorded version, all in one transaction (PostgreSQL's DDL
 * is transactional: all or none). A transaction advisory lock (`lockKey`, one per schema owner)
 * makes nodes starting together take turns: the first applies, the others find nothing left to do.
 * Each owner records its versions in a table of its own (`table`: the portal keeps
 * `schema_migrations`, the service has `service_schema_migrations`), so both can share one
 * database and migrate in either order (decision 0093).
 */
export async function migratePostgres(
  pool: Pool,
  migrations: readonly Migration[],
  lockKey: number,
  table = 'schema_migrations',
): Promise<number> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) throw new Error(`not a table name: ${table}`);
  const versions = migrations.map((m) => m.version);
  if (versions.some((v, i) => i > 0 && v <= (versions[i - 1] as number))) {
    throw new Error('migrations must be listed in strictly increasing version order');
  }
  const newest = versions.at(-1) ?? 0;
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const current = Number((await client.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${table}`)).rows[0]?.v ?? 0);
    if (current > newest) {
      throw new Error(`database schema version ${current} is newer than this code knows (${newest}); upgrade Periscope`);
    }
    let applied = 0;
    for (const m of migrations) {
      if (m.version <= current) continue;
      await apply(client, m, table);
      applied++;
    }
    return applied;
  });
}

/** Run `work` on one connection inside a transaction: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}

async function apply(client: PoolClient, m: Migration, table: string): Promise<void> {
  // A savepoint per migration names the one that failed; the outer transaction keeps all or none.
  await client.query('SAVEPOINT migration');
  try {
    await client.query(m.up);
    await client.query(`INSERT INTO ${table} (version, name, applied_at) VALUES ($1, $2, $3)`, [m.version, m.name, Date.now()]);
    await client.query('RELEASE SAVEPOINT migration');
  } catch (err) {
    throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
  }
}
