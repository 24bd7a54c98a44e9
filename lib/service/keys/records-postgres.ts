import { num, numOrNull, type PgStatements, type Row } from '../postgres-client.ts';
import { LIMITS_UPDATE, type ApiKeyRow, type ApiKeysTable, type KeyLimitChange } from './records.ts';

const fromRow = (r: Row): ApiKeyRow => ({
  id: r.id as string,
  name: r.name as string,
  secretHash: Buffer.from(r.secret_hash as Uint8Array),
  ratePerMinute: r.rate_per_minute as number,
  maxInstances: r.max_instances as number,
  actionsPerMinute: (r.actions_per_minute as number | null) ?? null,
  record: r.record === true,
  createdAt: num(r.created_at),
  lastUsedAt: numOrNull(r.last_used_at),
  revokedAt: numOrNull(r.revoked_at),
});

/**
 * API keys on PostgreSQL (decision 0093): the same statements as SqliteApiKeys. Each is one
 * statement, so no transaction is needed: a revocation is one conditional UPDATE, and a node reads
 * the row on every request, so a key revoked through one node is refused by every other at once.
 */
export class PostgresApiKeys implements ApiKeysTable {
  readonly #sql: PgStatements;

  constructor(sql: PgStatements) {
    this.#sql = sql;
  }

  async insert(row: Omit<ApiKeyRow, 'lastUsedAt' | 'revokedAt'>): Promise<void> {
    await this.#sql.run(
      `INSERT INTO api_keys (id, name, secret_hash, rate_per_minute, max_instances, actions_per_minute, record, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      row.id,
      row.name,
      row.secretHash,
      row.ratePerMinute,
      row.maxInstances,
      row.actionsPerMinute,
      row.record,
      row.createdAt,
    );
  }

  async get(id: string): Promise<ApiKeyRow | undefined> {
    const [row] = await this.#sql.rows('SELECT * FROM api_keys WHERE id = $1', id);
    return row && fromRow(row);
  }

  async list(): Promise<ApiKeyRow[]> {
    return (await this.#sql.rows('SELECT * FROM api_keys ORDER BY created_at, id')).map(fromRow);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    return (await this.#sql.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', at, id)) > 0;
  }

  async setRecord(id: string, record: boolean): Promise<boolean> {
    return (await this.#sql.run('UPDATE api_keys SET record = $1 WHERE id = $2', record, id)) > 0;
  }

  async setLimits(id: string, limits: KeyLimitChange): Promise<boolean> {
    const actions = limits.actionsPerMinute;
    return (
      (await this.#sql.run(
        LIMITS_UPDATE.replace('$1', '$1::integer').replace('$2', '$2::integer').replace('$4', '$4::integer'),
        limits.ratePerMinute ?? null,
        limits.maxInstances ?? null,
        actions === undefined ? 0 : 1,
        actions ?? null,
        id,
      )) > 0
    );
  }

  async touch(id: string, at: number): Promise<void> {
    // GREATEST: of two nodes touching at once, the later time stays.
    await this.#sql.run('UPDATE api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $1) WHERE id = $2', at, id);
  }
}
