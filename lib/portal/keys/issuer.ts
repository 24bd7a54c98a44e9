import { BadGateway, BadRequest } from '#shared/errors.ts';
import { OperatorCallFailed, type OperatorClient } from '../service-client/operator.ts';

/** The service's refusal of what the portal asked, as the portal's own error: a bad name is the user's; the rest the service's. */
async function calling<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof OperatorCallFailed && err.status === 400) throw new BadRequest(err.message);
    if (err instanceof OperatorCallFailed) throw new BadGateway(err.message);
    throw err;
  }
}

/** Issues and revokes service API keys, when the portal holds the service's operator token. */
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
 * Keys issued, recorded and revoked through the service's operator interface (decision 0107), the
 * same whether the service runs beside the portal or elsewhere (SERVICE_URL). The portal holds the
 * operator token; it never opens the service's key database.
 */
export class ServiceIssuer implements KeyIssuer {
  readonly available = true;
  readonly #client: OperatorClient;

  constructor(client: OperatorClient) {
    this.#client = client;
  }

  async issue(name: string, { record = false }: { record?: boolean } = {}) {
    const { key, token } = await calling(() => this.#client.create({ name, record }));
    return { serviceKeyId: key.id, token };
  }

  async revoke(serviceKeyId: string) {
    // A key the service no longer has is as good as revoked.
    await calling(async () => {
      if (await this.#client.get(serviceKeyId)) await this.#client.revoke(serviceKeyId);
    });
  }

  async setRecord(serviceKeyId: string, record: boolean) {
    return calling(async () => {
      if (!(await this.#client.get(serviceKeyId))) return false;
      await this.#client.change(serviceKeyId, { record });
      return true;
    });
  }

  async lastUsed(serviceKeyId: string) {
    // Only a figure on the keys page: a service out of reach leaves it out rather than failing the page.
    const at = (await this.#client.get(serviceKeyId).catch(() => null))?.lastUsedAt;
    return at ? Date.parse(at) : null;
  }
}

/** Without the operator token the portal cannot issue keys; teams add keys the service's operator gave them. */
export class NoIssuer implements KeyIssuer {
  readonly available = false;
  async issue(): Promise<never> {
    throw new Error('no operator token: this portal cannot issue keys');
  }
  async revoke() {}
  async setRecord() {
    return false;
  }
  async lastUsed() {
    return null;
  }
}
