import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { migratePostgres } from '#shared/postgres.ts';
import { openDatabase } from '#shared/sqlite.ts';
import type { BrowserHistory, HistoryOptions } from './browser/history.ts';
import { PostgresBrowserHistory } from './browser/history-postgres.ts';
import { SqliteBrowserHistory } from './browser/history-sqlite.ts';
import type { ServiceConfig } from './config.ts';
import { PostgresApiKeys } from './keys/records-postgres.ts';
import { SqliteApiKeys } from './keys/records.ts';
import { KeyStore, type KeyLimits } from './keys/store.ts';
import { serviceMigrations } from './migrations.ts';
import { servicePostgresMigrations } from './postgres-migrations.ts';
import { PgStatements, SERVICE_MIGRATION_LOCK, SERVICE_MIGRATIONS_TABLE } from './postgres-client.ts';

/** The service's own data: its API keys and its browsers' history, on one store. */
export type ServiceDatabase = {
  readonly kind: 'sqlite' | 'postgres';
  readonly keys: KeyStore;
  /** The browsers' history on the same store (one per process is enough). */
  history(opts: HistoryOptions): BrowserHistory;
  close(): Promise<void>;
};

export type DatabasePlace = Pick<ServiceConfig, 'dataDir' | 'database'>;

/**
 * Open the service's data where the configuration puts it, schema brought up to date: PostgreSQL
 * at DATABASE_URL (shared by every node, and with the portal), or SQLite in DATA_DIR/service.db.
 * The service, `npm run keys` and the embedded portal's key issuer all open it here, so they
 * cannot disagree on the store (decision 0093).
 */
export async function openServiceDatabase(where: DatabasePlace, limits: KeyLimits, { max = 10 } = {}): Promise<ServiceDatabase> {
  if (where.database.kind === 'sqlite')
    return sqliteServiceDatabase(openDatabase(join(where.dataDir, 'service.db'), serviceMigrations), limits);
  const pool = new pg.Pool({ connectionString: where.database.url, max, application_name: 'periscope-service' });
  try {
    await migrateServicePostgres(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return postgresServiceDatabase(pool, limits);
}

/** Bring the service's tables on PostgreSQL up to date; nodes starting together take turns. */
export const migrateServicePostgres = (pool: pg.Pool): Promise<number> =>
  migratePostgres(pool, servicePostgresMigrations, SERVICE_MIGRATION_LOCK, SERVICE_MIGRATIONS_TABLE);

/** The service's data on an opened, migrated SQLite database. */
export function sqliteServiceDatabase(db: DatabaseSync, limits: KeyLimits): ServiceDatabase {
  return {
    kind: 'sqlite',
    keys: new KeyStore(new SqliteApiKeys(db), limits),
    history: (opts) => new SqliteBrowserHistory(db, opts),
    close: async () => db.close(),
  };
}

/** The service's data on a pool whose schema is (or, once `ready` settles, will be) migrated. */
export function postgresServiceDatabase(pool: pg.Pool, limits: KeyLimits, ready?: Promise<void>): ServiceDatabase {
  const sql = new PgStatements(pool, ready);
  const histories: PostgresBrowserHistory[] = [];
  return {
    kind: 'postgres',
    keys: new KeyStore(new PostgresApiKeys(sql), limits),
    history: (opts) => {
      const history = new PostgresBrowserHistory(sql, opts);
      histories.push(history);
      return history;
    },
    close: async () => {
      // Writes still queued behind others of their browser go out first (an end at shutdown).
      await Promise.all(histories.map((h) => h.flush()));
      await sql.close();
    },
  };
}
