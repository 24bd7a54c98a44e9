import type { Migration } from '#shared/sqlite.ts';

/**
 * Schema of the service's own database (DATA_DIR/service.db). Append only; a change here is made
 * in postgres-migrations.ts too, with the same tables and columns (a test compares them).
 */
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
  {
    version: 2,
    name: 'browser history',
    up: `
      CREATE TABLE browsers (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        end_reason TEXT,
        url TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        tabs INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX browsers_by_key ON browsers (key_id, started_at DESC);
      CREATE INDEX browsers_by_end ON browsers (ended_at);`,
  },
  {
    version: 3,
    name: 'session recording',
    up: `
      ALTER TABLE api_keys ADD COLUMN record INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE browsers ADD COLUMN recorded INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE browsers ADD COLUMN recording_bytes INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 4,
    name: 'browser nodes',
    // The node that runs each browser ('' for a service that runs alone): a node's leftovers, or a
    // dead node's browsers, are ended by node (decision 0093).
    up: `
      ALTER TABLE browsers ADD COLUMN node_id TEXT NOT NULL DEFAULT '';
      CREATE INDEX browsers_live_by_node ON browsers (node_id) WHERE ended_at IS NULL;`,
  },
  {
    version: 5,
    name: 'page action limit',
    // The key's own limit of page actions a minute (docs/api.md, "Page actions"); NULL follows the
    // service's ACTIONS_RATE_PER_MINUTE, so keys made before keep the operator's default.
    up: `ALTER TABLE api_keys ADD COLUMN actions_per_minute INTEGER;`,
  },
];
