import { DatabaseSync } from 'node:sqlite';
import { pino } from 'pino';
import { SecretBox } from '#portal/crypto/secretbox.ts';
import { portalMigrations } from '#portal/data/migrations.ts';
import { SqlitePortalData } from '#portal/data/sqlite.ts';
import { migrate } from '#shared/sqlite.ts';
import { KeyUseLog } from '#portal/teams/audit.ts';
import type { PortalData } from '#portal/data/portal-data.ts';
import { signUp } from '#portal/accounts/accounts.ts';
import type { KeyIssuer } from '#portal/keys/issuer.ts';
import type { Vault } from '#portal/keys/vault.ts';
import { LocalDirectory } from '#portal/live/directory.ts';
import { KeyBrowsers } from '#portal/live/key-browsers.ts';
import type { TeamBrowsers } from '#portal/live/team-browsers.ts';
import type { Portal } from '#portal/runtime.ts';
import { ServiceHealthReader } from '#portal/service-client/health.ts';
import { postgresTestData, testDatabaseUrl } from './postgres-data.ts';

/** The store the data and domain tests run on: SQLite, or PostgreSQL in the run of `npm run test:postgres`. */
export const testStore: 'sqlite' | 'postgres' = testDatabaseUrl() ? 'postgres' : 'sqlite';

/**
 * For unit tests: the real data module on a fresh, empty store of its own: an in-memory SQLite
 * database, or in the PostgreSQL run a new schema on the run's private server.
 */
export function memoryData(): PortalData {
  if (testStore === 'postgres') return postgresTestData();
  const db = new DatabaseSync(':memory:');
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db, portalMigrations);
  return new SqlitePortalData(db);
}

/** An issuer double with the KeyIssuer interface, recording what it issued and revoked. */
export class RecordingIssuer implements KeyIssuer {
  readonly available = true;
  readonly revoked: string[] = [];
  /** Service key id → whether its browsers are recorded. */
  readonly recording = new Map<string, boolean>();
  #n = 0;
  async issue(_name: string, { record = false }: { record?: boolean } = {}) {
    this.#n++;
    this.recording.set(`svc${this.#n}`, record);
    return { serviceKeyId: `svc${this.#n}`, token: `psk_${String(this.#n).padStart(16, '0')}_${'s'.repeat(39)}${String(1000 + this.#n)}` };
  }
  async revoke(id: string) {
    this.revoked.push(id);
  }
  async setRecord(id: string, record: boolean) {
    if (!this.recording.has(id)) return false;
    this.recording.set(id, record);
    return true;
  }
  async lastUsed() {
    return null;
  }
}

export function memoryVault(secret = 'x'.repeat(40)): Vault & { issuer: RecordingIssuer } {
  const data = memoryData();
  return { data, box: new SecretBox(secret), issuer: new RecordingIssuer(), keyUse: new KeyUseLog(data) };
}

/**
 * The parts of the portal that its browser functions (lib/portal/live/browsers.ts) use, wired as
 * createPortal wires them in a single process, but on the test's own vault, its own `live`
 * registry and the real service at `serviceUrl`, with a silent log. The rest of Portal is left out.
 */
export function browserPortal(serviceUrl: string, vault: Vault, live: TeamBrowsers): Portal {
  const log = pino({ level: 'silent' });
  return {
    config: { serviceUrl },
    data: vault.data,
    vault,
    live,
    browsers: new LocalDirectory(live),
    keyBrowsers: new KeyBrowsers({ serviceUrl, vault, log }),
    serviceHealth: new ServiceHealthReader(serviceUrl),
    log,
  } as unknown as Portal;
}

/** Sign up through the real path and return the new account's actor. */
export async function account(data: PortalData, name: string, email = `${name.toLowerCase()}@example.test`): Promise<{ userId: string }> {
  await signUp(data, { name, email, password: 'long enough password' }, { enabled: true });
  const user = await data.userByEmail(email);
  if (!user) throw new Error(`sign-up of ${email} made no account`);
  return { userId: user.id };
}
