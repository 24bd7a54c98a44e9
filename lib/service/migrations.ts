import type { Migration } from '#shared/sqlite.ts';

/** Schema of the service's own database (DATA_DIR/service.db). Append only. */
export const serviceMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys',
    up: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash BLOB NOT NULL,
        rate_per_minute INTEGER NOT NULL,
        max_instances INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      );`,
  },
];
