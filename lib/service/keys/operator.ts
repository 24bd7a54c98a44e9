import { NotFound } from '#shared/errors.ts';
import type { KeyChange, NewOperatorKey, OperatorKey } from '#shared/protocol/operator.ts';
import type { ApiKey, KeyStore } from './store.ts';

/** A key as the operator interface shows it: everything but its secret (the store keeps only a hash). */
export const operatorKey = (k: ApiKey): OperatorKey => ({
  id: k.id,
  name: k.name,
  ratePerMinute: k.ratePerMinute,
  maxInstances: k.maxInstances,
  actionsPerMinute: k.actionsPerMinute,
  record: k.record,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

/**
 * What `npm run keys` does, for the operator interface (decision 0107). The store reads the
 * database at every call, so every node of a service sharing it answers alike.
 */
export class OperatorKeys {
  readonly #keys: KeyStore;

  constructor(keys: KeyStore) {
    this.#keys = keys;
  }

  async list(): Promise<OperatorKey[]> {
    return (await this.#keys.list()).map(operatorKey);
  }

  async get(id: string): Promise<OperatorKey> {
    const key = await this.#keys.get(id);
    if (!key) throw new NotFound(`no key with id ${id}`);
    return operatorKey(key);
  }

  async create(o: NewOperatorKey): Promise<{ key: OperatorKey; token: string }> {
    const { name, record, ...limits } = o;
    const { key, token } = await this.#keys.create(name, limits, { record: record ?? false });
    return { key: operatorKey(key), token };
  }

  async change(id: string, change: KeyChange): Promise<OperatorKey> {
    const { record, ...limits } = change;
    await this.get(id);
    if (Object.keys(limits).length && !(await this.#keys.setLimits(id, limits))) throw new NotFound(`no key with id ${id}`);
    if (record !== undefined && !(await this.#keys.setRecord(id, record))) throw new NotFound(`no key with id ${id}`);
    return this.get(id);
  }

  /** `revoked` is false when the key already was. */
  async revoke(id: string): Promise<{ key: OperatorKey; revoked: boolean }> {
    await this.get(id);
    const revoked = await this.#keys.revoke(id);
    return { key: await this.get(id), revoked };
  }
}
