import type { DatabaseSync } from 'node:sqlite';
import { ApiKeysTable, type ApiKeyRow } from './records.ts';
import { generateKey, hashSecret, parseKey, secretMatches } from './token.ts';

export type ApiKey = {
  id: string;
  name: string;
  ratePerMinute: number;
  maxInstances: number;
  /** Its browsers are recorded (docs/api.md, "Session recordings"). */
  record: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export type KeyLimits = { ratePerMinute: number; maxInstances: number };

const toKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  name: r.name,
  ratePerMinute: r.ratePerMinute,
  maxInstances: r.maxInstances,
  record: r.record,
  createdAt: new Date(r.createdAt),
  lastUsedAt: r.lastUsedAt === null ? null : new Date(r.lastUsedAt),
  revokedAt: r.revokedAt === null ? null : new Date(r.revokedAt),
});

const TOUCH_EVERY_MS = 60_000;

/** Issues, lists, revokes and verifies API keys. Reads go to the database every time, so a key
 * revoked by another process (the `keys` command, the portal) stops working at once. */
export class KeyStore {
  readonly #table: ApiKeysTable;
  readonly #defaults: KeyLimits;
  readonly #touched = new Map<string, number>();

  constructor(db: DatabaseSync, defaults: KeyLimits) {
    this.#table = new ApiKeysTable(db);
    this.#defaults = defaults;
  }

  create(name: string, limits: Partial<KeyLimits> = {}, { record = false }: { record?: boolean } = {}): { key: ApiKey; token: string } {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 100) throw new RangeError('a key name is 1 to 100 characters');
    const { id, secret, token } = generateKey();
    const row = {
      id,
      name: trimmed,
      secretHash: hashSecret(secret),
      ratePerMinute: limits.ratePerMinute ?? this.#defaults.ratePerMinute,
      maxInstances: limits.maxInstances ?? this.#defaults.maxInstances,
      record,
      createdAt: Date.now(),
    };
    for (const [what, n] of [
      ['rate per minute', row.ratePerMinute],
      ['max instances', row.maxInstances],
    ] as const) {
      if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new RangeError(`${what} must be a whole number from 1 to 1000000`);
    }
    this.#table.insert(row);
    return { key: toKey({ ...row, lastUsedAt: null, revokedAt: null }), token };
  }

  list(): ApiKey[] {
    return this.#table.list().map(toKey);
  }

  get(id: string): ApiKey | undefined {
    const row = this.#table.get(id);
    return row && toKey(row);
  }

  /** Record the key's browsers from their next start on, or stop. False when there is no such key. */
  setRecord(id: string, record: boolean): boolean {
    return this.#table.setRecord(id, record);
  }

  revoke(id: string): boolean {
    return this.#table.revoke(id, Date.now());
  }

  /** The live key a bearer token names, or null. Constant-time in the secret. */
  verify(token: string): ApiKey | null {
    const parsed = parseKey(token);
    if (!parsed) return null;
    const row = this.#table.get(parsed.id);
    if (!row || row.revokedAt !== null || !secretMatches(parsed.secret, row.secretHash)) return null;
    this.#touch(row.id);
    return toKey(row);
  }

  #touch(id: string): void {
    const now = Date.now();
    if (now - (this.#touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.#touched.set(id, now);
    this.#table.touch(id, now);
  }
}
