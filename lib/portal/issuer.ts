import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../db/sqlite.ts';
import { serviceMigrations } from '../db/service-migrations.ts';
import { KeyStore, type KeyLimits } from '../keys/store.ts';

/** Issues and revokes service API keys, when the portal runs beside the service. */
export interface KeyIssuer {
  readonly available: boolean;
  issue(name: string): { serviceKeyId: string; token: string };
  revoke(serviceKeyId: string): void;
  /** When the service last saw the key, or null. */
  lastUsed(serviceKeyId: string): number | null;
}

/** Embedded mode: the service's own KeyStore on DATA_DIR/service.db (SQLite WAL, safe across processes). */
export class EmbeddedIssuer implements KeyIssuer {
  readonly available = true;
  readonly #dataDir: string;
  readonly #limits: KeyLimits;
  #db: DatabaseSync | undefined;
  #store: KeyStore | undefined;

  constructor(dataDir: string, limits: KeyLimits) {
    this.#dataDir = dataDir;
    this.#limits = limits;
  }

  // Opened on first use, by when the service process has created and migrated the file.
  get #keys(): KeyStore {
    if (!this.#store) {
      this.#db = openDatabase(join(this.#dataDir, 'service.db'), serviceMigrations);
      this.#store = new KeyStore(this.#db, this.#limits);
    }
    return this.#store;
  }

  issue(name: string) {
    const { key, token } = this.#keys.create(name);
    return { serviceKeyId: key.id, token };
  }

  revoke(serviceKeyId: string) {
    this.#keys.revoke(serviceKeyId);
  }

  lastUsed(serviceKeyId: string) {
    return this.#keys.get(serviceKeyId)?.lastUsedAt?.getTime() ?? null;
  }

  close() {
    this.#db?.close();
  }
}

/** Remote mode: the portal cannot issue keys; teams add keys the remote deployment gave them. */
export class NoIssuer implements KeyIssuer {
  readonly available = false;
  issue(): never {
    throw new Error('no embedded service');
  }
  revoke() {}
  lastUsed() {
    return null;
  }
}
