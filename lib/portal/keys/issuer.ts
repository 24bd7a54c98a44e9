import { openKeyDatabase, type KeyLimits, type KeyStore } from '#service/keys/key-database.ts';

/** Issues and revokes service API keys, when the portal runs beside the service. */
export interface KeyIssuer {
  readonly available: boolean;
  issue(name: string, options?: { record?: boolean }): { serviceKeyId: string; token: string };
  /** Record the key's browsers from their next start, or stop; false when this issuer cannot. */
  setRecord(serviceKeyId: string, record: boolean): boolean;
  revoke(serviceKeyId: string): void;
  /** When the service last saw the key, or null. */
  lastUsed(serviceKeyId: string): number | null;
}

/**
 * Embedded mode: the service's own key store on DATA_DIR/service.db, through the one module of the
 * service the portal may use (docs/decisions/0060-code-sorted-by-owner.md).
 */
export class EmbeddedIssuer implements KeyIssuer {
  readonly available = true;
  readonly #dataDir: string;
  readonly #limits: KeyLimits;
  #opened: ReturnType<typeof openKeyDatabase> | undefined;

  constructor(dataDir: string, limits: KeyLimits) {
    this.#dataDir = dataDir;
    this.#limits = limits;
  }

  // Opened on first use, by when the service process has created and migrated the file.
  get #keys(): KeyStore {
    this.#opened ??= openKeyDatabase(this.#dataDir, this.#limits);
    return this.#opened.keys;
  }

  issue(name: string, { record = false }: { record?: boolean } = {}) {
    const { key, token } = this.#keys.create(name, {}, { record });
    return { serviceKeyId: key.id, token };
  }

  revoke(serviceKeyId: string) {
    this.#keys.revoke(serviceKeyId);
  }

  setRecord(serviceKeyId: string, record: boolean) {
    return this.#keys.setRecord(serviceKeyId, record);
  }

  lastUsed(serviceKeyId: string) {
    return this.#keys.get(serviceKeyId)?.lastUsedAt?.getTime() ?? null;
  }

  close() {
    this.#opened?.close();
  }
}

/** Remote mode: the portal cannot issue keys; teams add keys the remote deployment gave them. */
export class NoIssuer implements KeyIssuer {
  readonly available = false;
  issue(): never {
    throw new Error('no embedded service');
  }
  revoke() {}
  setRecord() {
    return false;
  }
  lastUsed() {
    return null;
  }
}
