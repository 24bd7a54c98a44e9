import { BadRequest } from '#shared/errors.ts';
import type { ApiKeyRow, ApiKeysTable, KeyLimitChange } from './records.ts';
import { generateKey, hashSecret, parseKey, secretMatches } from './token.ts';

export type ApiKey = {
  id: string;
  name: string;
  ratePerMinute: number;
  maxInstances: number;
  /** Page actions a minute; null follows the service's default (ACTIONS_RATE_PER_MINUTE). */
  actionsPerMinute: number | null;
  /** Its browsers are recorded (docs/api.md, "Session recordings"). */
  record: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export type KeyLimits = { ratePerMinute: number; maxInstances: number };
/** A key's own limits when it is made; those not given are the defaults (the page actions' the service's, at each call). */
export type NewKeyLimits = Partial<KeyLimits> & { actionsPerMinute?: number };

const toKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  name: r.name,
  ratePerMinute: r.ratePerMinute,
  maxInstances: r.maxInstances,
  actionsPerMinute: r.actionsPerMinute,
  record: r.record,
  createdAt: new Date(r.createdAt),
  lastUsedAt: r.lastUsedAt === null ? null : new Date(r.lastUsedAt),
  revokedAt: r.revokedAt === null ? null : new Date(r.revokedAt),
});

const TOUCH_EVERY_MS = 60_000;

/** Each limit given a whole number from 1 to 1,000,000 (a page-action limit may be null: the default). */
function checkLimits(limits: KeyLimitChange): void {
  for (const [what, n] of [
    ['rate per minute', limits.ratePerMinute],
    ['max instances', limits.maxInstances],
    ['page actions per minute', limits.actionsPerMinute],
  ] as const) {
    if (n === undefined || n === null) continue;
    if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new BadRequest(`${what} must be a whole number from 1 to 1000000`);
  }
}

/**
 * Issues, lists, revokes and verifies API keys, on either store (SQLite or PostgreSQL: the table
 * given). Reads go to the database every time, so a key revoked by another process (the `keys`
 * command, the portal, another service node) stops working at once. Bad input is a BadRequest (400).
 */
export class KeyStore {
  readonly #table: ApiKeysTable;
  readonly #defaults: KeyLimits;
  readonly #touched = new Map<string, number>();

  constructor(table: ApiKeysTable, defaults: KeyLimits) {
    this.#table = table;
    this.#defaults = defaults;
  }

  async create(
    name: string,
    limits: NewKeyLimits = {},
    { record = false }: { record?: boolean } = {},
  ): Promise<{ key: ApiKey; token: string }> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 100) throw new BadRequest('a key name is 1 to 100 characters');
    // PostgreSQL cannot hold NUL in text; refused on both stores alike.
    if (trimmed.includes('\u0000')) throw new BadRequest('a key name must not contain NUL characters');
    const { id, secret, token } = generateKey();
    const row = {
      id,
      name: trimmed,
      secretHash: hashSecret(secret),
      ratePerMinute: limits.ratePerMinute ?? this.#defaults.ratePerMinute,
      maxInstances: limits.maxInstances ?? this.#defaults.maxInstances,
      actionsPerMinute: limits.actionsPerMinute ?? null,
      record,
      createdAt: Date.now(),
    };
    checkLimits(row);
    await this.#table.insert(row);
    return { key: toKey({ ...row, lastUsedAt: null, revokedAt: null }), token };
  }

  async list(): Promise<ApiKey[]> {
    return (await this.#table.list()).map(toKey);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const row = await this.#table.get(id);
    return row && toKey(row);
  }

  /** Record the key's browsers from their next start on, or stop. False when there is no such key. */
  setRecord(id: string, record: boolean): Promise<boolean> {
    return this.#table.setRecord(id, record);
  }

  /**
   * Change a key's limits from its next request on: those given set, the others kept
   * (`actionsPerMinute` null: back to the service's default). False when there is no such key.
   */
  async setLimits(id: string, limits: KeyLimitChange): Promise<boolean> {
    checkLimits(limits);
    return this.#table.setLimits(id, limits);
  }

  revoke(id: string): Promise<boolean> {
    return this.#table.revoke(id, Date.now());
  }

  /** The live key a bearer token names, or null. Constant-time in the secret. */
  async verify(token: string): Promise<ApiKey | null> {
    const parsed = parseKey(token);
    if (!parsed) return null;
    const row = await this.#table.get(parsed.id);
    if (!row || row.revokedAt !== null || !secretMatches(parsed.secret, row.secretHash)) return null;
    await this.#touch(row.id);
    return toKey(row);
  }

  /** Note the key's use, at most once a minute per key and process (a write per request would cost every request). */
  async #touch(id: string): Promise<void> {
    const now = Date.now();
    if (now - (this.#touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.#touched.set(id, now);
    await this.#table.touch(id, now);
  }
}
