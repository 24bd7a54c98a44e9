import type { PortalConfig } from '../config.ts';
import type { PortalData } from './portal-data.ts';
import { PostgresPortalData } from './postgres.ts';
import { SqlitePortalData } from './sqlite.ts';

/**
 * Open the portal's data where the configuration puts it, schema brought up to date: PostgreSQL
 * at DATABASE_URL, or SQLite in DATA_DIR/portal.db. The portal and its CLIs all open it here, so
 * they cannot disagree on the store (decision 0090).
 */
export async function openPortalData(config: Pick<PortalConfig, 'dataDir' | 'database'>): Promise<PortalData> {
  if (config.database.kind === 'postgres') return PostgresPortalData.open(config.database.url);
  return SqlitePortalData.open(config.dataDir);
}
