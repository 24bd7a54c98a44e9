import { openKeyDatabase, type DatabasePlace, type KeyLimits, type KeyStore } from '#service/keys/key-database.ts';

/** Issues and revokes service API keys, when the portal runs beside the service. */
export interface KeyIssuer {
  readonly available: boolean;
  issue(name: string, options?: { record?: boolean }): Promise<{ serviceKeyId: string; token: string }>;
  /** Record the key's browsers from their next start, or stop; false when this issuer cannot. */
  setRecord(serviceKeyId: string, record: boolean): Promise<boolean>;
  revoke(serviceKeyId: string): Promise<void>;
  /** When the service last saw the key, or null. */
  lastUsed(serviceKeyId: string): Promise<number | null>;
}

/**
 * Embedded mode: the service's own key store where the service keeps it (DATA_DIR/service.db, or
 * PostgreSQL at the DATABASE_URL both processes are given), through the one module of the service
 * the portal may use (docs/decisions/0060-code-sorted-by-owner.md).
 */
export class EmbeddedIssuer implements KeyIssuer {
  readonly available = true;
  readonly #where: DatabasePlace;
  readonly #limits: KeyLimits;
  #opened: ReturnType<typeof openKeyDatabase> | undefined;

  constructor(where: DatabasePlace, limits: KeyLimits) {
    this.#where = where;
    this.#limits = limits;
  }

  // Opened on first use, by when the service process has created and migrated its tables; a
  // failed open is tried again on the next use.
  async #keys(): Promise<KeyStore> {
    this.#opened ??= openKeyDatabase(this.#where, this.#limits, { max: 2 });
    const opened = this.#opened;
    try {
      return (await opened).keys;
    } catch (err) {
      if (this.#opened === opened) this.#opened = undefined;
      throw err;
    }
  }

  async issue(name: string, { record = false }: { record?: boolean } = {}) {
    const { key, token } = await (await this.#keys()).create(name, {}, { record });
    return { serviceKeyId: key.id, token };
  }

  async revoke(serviceKeyId: string) {
    await (await this.#keys()).revoke(serviceKeyId);
  }

  async setRecord(serviceKeyId: string, record: boolean) {
    return (await this.#keys()).setRecord(serviceKeyId, record);
  }

  async lastUsed(serviceKeyId: string) {
    return (await (await this.#keys()).get(serviceKeyId))?.lastUsedAt?.getTime() ?? null;
  }

  async close() {
    const opened = this.#opened;
    this.#opened = undefined;
    await (await opened?.catch(() => null))?.close();
  }
}

/** Remote mode: the portal cannot issue keys; teams add keys the remote deployment gave them. */
export class NoIssuer implements KeyIssuer {
  readonly available = false;
  async issue(): Promise<never> {
    throw new Error('no embedded service');
  }
  async revoke() {}
  async setRecord() {
    return false;
  }
  async lastUsed() {
    return null;
  }
}
