import { openServiceDatabase, type DatabasePlace } from '../database.ts';
import { loadServiceConfig } from '../config.ts';
import type { KeyLimits, KeyStore } from './store.ts';

/**
 * The service's key store where the configuration puts it (SQLite in DATA_DIR/service.db, or
 * PostgreSQL at DATABASE_URL), opened and migrated, for whoever holds that configuration: the
 * `npm run keys` command, and, in the embedded default only, the portal's key issuer. It is the one
 * module of lib/service/ the portal may import (docs/decisions/0060-code-sorted-by-owner.md).
 * SQLite in WAL mode keeps the file safe across those processes; PostgreSQL is shared by design.
 */
export async function openKeyDatabase(
  where: DatabasePlace,
  limits: KeyLimits,
  options: { max?: number } = {},
): Promise<{ keys: KeyStore; close(): Promise<void> }> {
  const { keys, close } = await openServiceDatabase(where, limits, options);
  return { keys, close };
}

export type { DatabasePlace, KeyLimits, KeyStore };

/** The limits a new key gets, as the service would read them from the same environment. */
export function defaultKeyLimits(env: NodeJS.ProcessEnv, dataDir: string): KeyLimits {
  const config = loadServiceConfig({ ...env, DATA_DIR: dataDir });
  return { ratePerMinute: config.search.defaultRatePerMinute, maxInstances: config.browser.maxInstancesPerKey };
}
