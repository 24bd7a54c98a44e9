import { openServiceDatabase, type DatabasePlace } from '../database.ts';
import type { KeyLimits, KeyStore } from './store.ts';

/**
 * The service's key store where the configuration puts it (SQLite in DATA_DIR/service.db, or
 * PostgreSQL at DATABASE_URL), opened and migrated, for the `npm run keys` command beside the
 * service. The portal no longer opens it: it uses the service's operator interface (decision 0107).
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
