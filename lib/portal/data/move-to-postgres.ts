import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgres } from '#shared/postgres.ts';
import type { MovePart, TableToCopy } from '#shared/sqlite-to-postgres.ts';
import { portalPostgresMigrations } from './postgres-migrations.ts';
import { PORTAL_MIGRATION_LOCK } from './postgres.ts';
import { openPortalDatabase } from './sqlite.ts';

/** Every table of the portal's data, each after the tables its foreign keys name (users' current team is checked at commit). */
export const PORTAL_TABLES: readonly TableToCopy[] = [
  'users',
  'teams',
  'oauth_accounts',
  'memberships',
  'invites',
  'team_keys',
  'audit_events',
  'sign_in_failures',
  'instance_history',
  'recent_searches',
  'password_resets',
  'control_history',
  'live_links',
  'team_proxies',
].map((name) => ({ name }));

/**
 * The portal's data in DATA_DIR/portal.db (brought up to date first), ready to be copied into
 * PostgreSQL; null when DATA_DIR holds none. The caller closes `source`. Stored API keys stay
 * sealed with the key-encryption secret: portal nodes on PostgreSQL need the same one.
 */
export function portalMovePart(dataDir: string): MovePart | null {
  if (!existsSync(join(dataDir, 'portal.db'))) return null;
  return {
    owner: 'portal',
    source: openPortalDatabase(dataDir),
    migrate: (pool) => migratePostgres(pool, portalPostgresMigrations, PORTAL_MIGRATION_LOCK),
    tables: PORTAL_TABLES,
  };
}
