import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '#shared/sqlite.ts';
import { loadServiceConfig } from '../config.ts';
import { serviceMigrations } from '../migrations.ts';
import { KeyStore, type KeyLimits } from './store.ts';

/**
 * The service's key store on DATA_DIR/service.db, opened and migrated, for whoever holds that folder:
 * the service, the `npm run keys` command, and, in the embedded default only, the portal's key issuer.
 * It is the one module of lib/service/ the portal may import (docs/decisions/0060-code-sorted-by-owner.md).
 * SQLite in WAL mode keeps the file safe across those processes.
 */
export function openKeyDatabase(dataDir: string, limits: KeyLimits): { db: DatabaseSync; keys: KeyStore; close(): void } {
  const db = openDatabase(join(dataDir, 'service.db'), serviceMigrations);
  return { db, keys: new KeyStore(db, limits), close: () => db.close() };
}

export type { KeyLimits, KeyStore };

/** The limits a new key gets, as the service would read them from the same environment. */
export function defaultKeyLimits(env: NodeJS.ProcessEnv, dataDir: string): KeyLimits {
  const config = loadServiceConfig({ ...env, DATA_DIR: dataDir });
  return { ratePerMinute: config.search.defaultRatePerMinute, maxInstances: config.browser.maxInstancesPerKey };
}
