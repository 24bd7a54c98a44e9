import type pg from 'pg';
import { BadRequest } from '#shared/errors.ts';

export type Param = string | number | boolean | null | Buffer;
export type Row = Record<string, unknown>;

/** The advisory lock key under which service nodes take turns migrating ("PSCP" + 2; the portal's is + 1). */
export const SERVICE_MIGRATION_LOCK = 0x50534350_02;
/** Where the service records its schema versions; the portal keeps `schema_migrations` (decision 0093). */
export const SERVICE_MIGRATIONS_TABLE = 'service_schema_migrations';

/**
 * The service's statements on PostgreSQL, through one pool: each waits until the schema is ready
 * (a test's fresh schema) and refuses text PostgreSQL cannot hold (NUL) as bad input, a 400, rather
 * than failing as a server error.
 */
export class PgStatements {
  readonly #pool: pg.Pool;
  readonly #ready: Promise<void>;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(pool: pg.Pool, ready: Promise<void> = Promise.resolve()) {
    this.#pool = pool;
    this.#ready = ready;
    ready.catch(() => {}); // seen by the first statement that waits for it
    // A pool's idle connection can be cut (a server restart); the next statement opens a new one.
    pool.on('error', () => {});
  }

  async rows(sql: string, ...params: Param[]): Promise<Row[]> {
    return (await this.#query(sql, params)).rows as Row[];
  }

  async run(sql: string, ...params: Param[]): Promise<number> {
    return (await this.#query(sql, params)).rowCount ?? 0;
  }

  #query(sql: string, params: Param[]): Promise<pg.QueryResult> {
    for (const p of params) if (typeof p === 'string' && p.includes('\u0000')) throw new BadRequest('text must not contain NUL characters');
    const query = this.#ready.then(() => this.#pool.query(sql, params));
    this.#inFlight.add(query);
    const done = () => this.#inFlight.delete(query);
    query.then(done, done);
    return query;
  }

  /** Close the pool once the statements already sent are answered. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
    await this.#pool.end();
  }
}

/** A BIGINT column (pg returns it as text) as a number, keeping null. */
export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
