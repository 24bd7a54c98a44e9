import type { Migration } from '#shared/sqlite.ts';

/**
 * Schema of the service's data on PostgreSQL (DATABASE_URL; decision 0093), recorded in
 * `service_schema_migrations` so that the portal's migrations can share the database. Version 1
 * holds what SQLite's versions 1–4 built: the same tables and columns (a test compares them), with
 * `BIGINT` epoch milliseconds, `BOOLEAN` flags, `BYTEA` hashes and ids `COLLATE "C"` (bytewise,
 * as SQLite orders them). Append only; a change is made in migrations.ts too.
 */
export const servicePostgresMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys and browser history',
    up: `
      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash BYTEA NOT NULL,
        rate_per_minute INTEGER NOT NULL,
        max_instances INTEGER NOT NULL,
        record BOOLEAN NOT NULL DEFAULT FALSE,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE TABLE browsers (
        id TEXT COLLATE "C" PRIMARY KEY,
        key_id TEXT COLLATE "C" NOT NULL,
        node_id TEXT COLLATE "C" NOT NULL DEFAULT '',
        started_at BIGINT NOT NULL,
        ended_at BIGINT,
        end_reason TEXT,
        url TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        tabs INTEGER NOT NULL DEFAULT 0,
        recorded BOOLEAN NOT NULL DEFAULT FALSE,
        recording_bytes BIGINT NOT NULL DEFAULT 0
      );
      CREATE INDEX browsers_by_key ON browsers (key_id, started_at DESC);
      CREATE INDEX browsers_by_end ON browsers (ended_at);
      CREATE INDEX browsers_live_by_node ON browsers (node_id) WHERE ended_at IS NULL;`,
  },
  {
    version: 2,
    name: 'page action limit',
    // As SQLite's version 5.
    up: `ALTER TABLE api_keys ADD COLUMN actions_per_minute INTEGER;`,
  },
];
