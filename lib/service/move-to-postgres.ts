import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '#shared/sqlite.ts';
import type { MovePart, TableToCopy } from '#shared/sqlite-to-postgres.ts';
import { migrateServicePostgres } from './database.ts';
import { serviceMigrations } from './migrations.ts';

/**
 * The service's tables. A browser the SQLite service left without an end ended with that
 * service (`service-restarted`, as a restarted node says of its predecessor's): no node on
 * PostgreSQL would ever claim it.
 */
export function serviceTables(now: number): readonly TableToCopy[] {
  return [
    { name: 'api_keys' },
    {
      name: 'browsers',
      adapt: (row) => (row.ended_at === null ? { ...row, ended_at: now, end_reason: 'service-restarted' } : row),
    },
  ];
}

/**
 * The service's keys and browser history in DATA_DIR/service.db (brought up to date first),
 * ready to be copied into PostgreSQL; null when DATA_DIR holds none. The caller closes `source`.
 * Recordings and the search index stay files in DATA_DIR.
 */
export function serviceMovePart(dataDir: string, now = Date.now()): MovePart | null {
  if (!existsSync(join(dataDir, 'service.db'))) return null;
  return {
    owner: 'service',
    source: openDatabase(join(dataDir, 'service.db'), serviceMigrations),
    migrate: migrateServicePostgres,
    tables: serviceTables(now),
  };
}
