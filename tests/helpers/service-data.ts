import { DatabaseSync } from 'node:sqlite';
import { postgresServiceDatabase, migrateServicePostgres, sqliteServiceDatabase, type ServiceDatabase } from '#service/database.ts';
import type { KeyLimits } from '#service/keys/store.ts';
import { serviceMigrations } from '#service/migrations.ts';
import { migrate } from '#shared/sqlite.ts';
import { freshSchema, testDatabaseUrl } from './postgres-data.ts';

/** The store the service's data tests run on: SQLite, or PostgreSQL in the run of `npm run test:postgres`. */
export const serviceTestStore: 'sqlite' | 'postgres' = testDatabaseUrl() ? 'postgres' : 'sqlite';

const LIMITS: KeyLimits = { ratePerMinute: 40, maxInstances: 5 };

/**
 * For unit tests: the service's real data module (keys and history) on a fresh, empty store of its
 * own: an in-memory SQLite database, or in the PostgreSQL run a new schema on the run's private server.
 */
export function serviceTestData(limits: KeyLimits = LIMITS): ServiceDatabase {
  if (serviceTestStore === 'sqlite') {
    const db = new DatabaseSync(':memory:');
    migrate(db, serviceMigrations);
    return sqliteServiceDatabase(db, limits);
  }
  const { pool, created } = freshSchema();
  const ready = created.then(async () => {
    await migrateServicePostgres(pool);
  });
  return postgresServiceDatabase(pool, limits, ready);
}
