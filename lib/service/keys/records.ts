import type { DatabaseSync, StatementSync } from 'node:sqlite';

export type ApiKeyRow = {
  id: string;
  name: string;
  secretHash: Buffer;
  ratePerMinute: number;
  maxInstances: number;
  /** Page actions a minute; null follows the service's default (ACTIONS_RATE_PER_MINUTE). */
  actionsPerMinute: number | null;
  /** Its browsers are recorded (docs/api.md, "Session recordings"). */
  record: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
};

/**
 * Every statement about API keys, on either store (decision 0093): SQLite (below) or PostgreSQL
 * (records-postgres.ts). The rules (validation, hashing, verification, touch throttling) are
 * KeyStore's, the same for both.
 */
/** A change of a key's limits: those given set, the others kept; `actionsPerMinute` null goes back to the service's default. */
export type KeyLimitChange = { ratePerMinute?: number; maxInstances?: number; actionsPerMinute?: number | null };

/** The one statement both stores change limits with ($1 rate, $2 instances, $3 whether to set actions, $4 actions, $5 id): one write, no read before it. */
export const LIMITS_UPDATE = `UPDATE api_keys SET rate_per_minute = COALESCE($1, rate_per_minute), max_instances = COALESCE($2, max_instances),
  actions_per_minute = CASE WHEN $3 = 1 THEN $4 ELSE actions_per_minute END WHERE id = $5`;

export interface ApiKeysTable {
  insert(row: Omit<ApiKeyRow, 'lastUsedAt' | 'revokedAt'>): Promise<void>;
  get(id: string): Promise<ApiKeyRow | undefined>;
  /** Oldest first. */
  list(): Promise<ApiKeyRow[]>;
  /** True when the key existed and was live. */
  revoke(id: string, at: number): Promise<boolean>;
  /** True when the key exists. */
  setRecord(id: string, record: boolean): Promise<boolean>;
  /** The limits given changed, the others kept (`actionsPerMinute` null: the service's default). True when the key exists. */
  setLimits(id: string, limits: KeyLimitChange): Promise<boolean>;
  touch(id: string, at: number): Promise<void>;
}

type RawRow = {
  id: string;
  name: string;
  secret_hash: Uint8Array;
  rate_per_minute: number;
  max_instances: number;
  actions_per_minute: number | null;
  record: number;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
};

const fromRaw = (r: RawRow): ApiKeyRow => ({
  id: r.id,
  name: r.name,
  secretHash: Buffer.from(r.secret_hash),
  ratePerMinute: r.rate_per_minute,
  maxInstances: r.max_instances,
  actionsPerMinute: r.actions_per_minute ?? null,
  record: r.record === 1,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** API keys in DATA_DIR/service.db. Each statement runs at once (synchronously) inside its promise. */
export class SqliteApiKeys implements ApiKeysTable {
  readonly #insert: StatementSync;
  readonly #byId: StatementSync;
  readonly #all: StatementSync;
  readonly #revoke: StatementSync;
  readonly #touch: StatementSync;
  readonly #record: StatementSync;
  readonly #limits: StatementSync;

  constructor(db: DatabaseSync) {
    this.#insert =
      db.prepare(`INSERT INTO api_keys (id, name, secret_hash, rate_per_minute, max_instances, actions_per_minute, record, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#byId = db.prepare('SELECT * FROM api_keys WHERE id = ?');
    this.#all = db.prepare('SELECT * FROM api_keys ORDER BY created_at, id');
    this.#revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.#record = db.prepare('UPDATE api_keys SET record = ? WHERE id = ?');
    this.#limits = db.prepare(LIMITS_UPDATE.replace(/\$\d/g, '?'));
  }

  async insert(row: Omit<ApiKeyRow, 'lastUsedAt' | 'revokedAt'>): Promise<void> {
    this.#insert.run(
      row.id,
      row.name,
      row.secretHash,
      row.ratePerMinute,
      row.maxInstances,
      row.actionsPerMinute,
      row.record ? 1 : 0,
      row.createdAt,
    );
  }

  async get(id: string): Promise<ApiKeyRow | undefined> {
    const raw = this.#byId.get(id) as RawRow | undefined;
    return raw && fromRaw(raw);
  }

  async list(): Promise<ApiKeyRow[]> {
    return (this.#all.all() as RawRow[]).map(fromRaw);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    return Number(this.#revoke.run(at, id).changes) > 0;
  }

  async setRecord(id: string, record: boolean): Promise<boolean> {
    return Number(this.#record.run(record ? 1 : 0, id).changes) > 0;
  }

  async setLimits(id: string, limits: KeyLimitChange): Promise<boolean> {
    const actions = limits.actionsPerMinute;
    return (
      Number(
        this.#limits.run(limits.ratePerMinute ?? null, limits.maxInstances ?? null, actions === undefined ? 0 : 1, actions ?? null, id)
          .changes,
      ) > 0
    );
  }

  async touch(id: string, at: number): Promise<void> {
    this.#touch.run(at, id);
  }
}
