import { num, numOrNull, type PgStatements, type Row } from '../postgres-client.ts';
import type { PageState } from './tab-watch.ts';
import {
  HISTORY_COLUMNS,
  listed,
  toRecord,
  type BrowserHistory,
  type BrowserRecord,
  type BrowserStart,
  type HistoryOptions,
  type HistoryRow,
} from './history.ts';

const fromRow = (r: Row): HistoryRow => ({
  id: r.id as string,
  node_id: r.node_id as string,
  started_at: num(r.started_at),
  ended_at: numOrNull(r.ended_at),
  end_reason: r.end_reason as string | null,
  url: r.url as string,
  title: r.title as string,
  tabs: r.tabs as number,
  recorded: r.recorded === true,
  recording_bytes: num(r.recording_bytes),
});

/** A page's address and title are what the page says: NUL (which PostgreSQL's text cannot hold) becomes U+FFFD. */
const text = (s: string | undefined): string => (s ?? '').replaceAll('\u0000', '\uFFFD');

/**
 * The history on PostgreSQL (decision 0093), shared by every service node: the same statements as
 * SqliteBrowserHistory. Statements run on a pool, so two writes about one browser sent one after
 * another could land in the other order (an end before its start); writes are therefore chained
 * per browser and applied in the order they were called.
 */
export class PostgresBrowserHistory implements BrowserHistory {
  readonly #sql: PgStatements;
  readonly #opts: HistoryOptions;
  readonly #writing = new Map<string, Promise<unknown>>();

  constructor(sql: PgStatements, opts: HistoryOptions) {
    this.#sql = sql;
    this.#opts = opts;
  }

  /** Run `write` after every earlier write about browser `id`, whether that one succeeded or not. */
  #inOrder(id: string, write: () => Promise<unknown>): Promise<void> {
    const previous = this.#writing.get(id) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(write);
    this.#writing.set(id, next);
    const forget = () => {
      if (this.#writing.get(id) === next) this.#writing.delete(id);
    };
    next.then(forget, forget);
    return next.then(() => {});
  }

  /** Settles once every write called so far is done (before the pool closes). */
  async flush(): Promise<void> {
    while (this.#writing.size) await Promise.allSettled([...this.#writing.values()]);
  }

  started({ id, keyId, nodeId, at, recorded = false }: BrowserStart): Promise<void> {
    return this.#inOrder(id, () =>
      this.#sql.run(
        'INSERT INTO browsers (id, key_id, node_id, started_at, recorded) VALUES ($1, $2, $3, $4, $5)',
        id,
        keyId,
        nodeId,
        at,
        recorded,
      ),
    );
  }

  ended(id: string, reason: string, at: number, last: PageState): Promise<void> {
    return this.#inOrder(id, () =>
      this.#sql.run(
        'UPDATE browsers SET ended_at = $1, end_reason = $2, url = $3, title = $4, tabs = $5 WHERE id = $6 AND ended_at IS NULL',
        at,
        reason,
        text(last.page?.url),
        text(last.page?.title),
        last.tabs,
        id,
      ),
    );
  }

  observed(id: string, state: PageState): Promise<void> {
    return this.#inOrder(id, () =>
      this.#sql.run(
        'UPDATE browsers SET url = $1, title = $2, tabs = $3 WHERE id = $4 AND ended_at IS NULL',
        text(state.page?.url),
        text(state.page?.title),
        state.tabs,
        id,
      ),
    );
  }

  recordingSize(id: string, bytes: number): Promise<void> {
    return this.#inOrder(id, () => this.#sql.run('UPDATE browsers SET recording_bytes = $1 WHERE id = $2', bytes, id));
  }

  async get(id: string, keyId: string): Promise<BrowserRecord | undefined> {
    const [row] = await this.#sql.rows(`SELECT ${HISTORY_COLUMNS} FROM browsers WHERE id = $1 AND key_id = $2`, id, keyId);
    return row && toRecord(fromRow(row));
  }

  async expiredRecordings(now: number): Promise<string[]> {
    const rows = await this.#sql.rows(
      'SELECT id FROM browsers WHERE recorded AND ended_at IS NOT NULL AND ended_at < $1',
      now - this.#opts.recordingRetentionMs,
    );
    return rows.map((r) => r.id as string);
  }

  forgetRecording(id: string): Promise<void> {
    return this.#inOrder(id, () => this.#sql.run('UPDATE browsers SET recorded = FALSE, recording_bytes = 0 WHERE id = $1', id));
  }

  async endNode(nodeId: string, reason: string, at: number): Promise<string[]> {
    // One statement: of this and a node's own end of a browser, whichever commits first is kept.
    const rows = await this.#sql.rows(
      'UPDATE browsers SET ended_at = $1, end_reason = $2 WHERE node_id = $3 AND ended_at IS NULL RETURNING id',
      at,
      reason,
      nodeId,
    );
    return rows.map((r) => r.id as string).sort();
  }

  async endLeftovers(nodeId: string, at: number): Promise<number> {
    return (await this.endNode(nodeId, 'service-restarted', at)).length;
  }

  async list(keyId: string, now: number): Promise<BrowserRecord[]> {
    const rows = await this.#sql.rows(
      `SELECT ${HISTORY_COLUMNS} FROM browsers
       WHERE key_id = $1 AND (ended_at IS NULL OR ended_at >= $2 OR (recorded AND ended_at >= $3))
       ORDER BY started_at DESC, id`,
      keyId,
      now - this.#opts.retentionMs,
      now - this.#opts.recordingRetentionMs,
    );
    return listed(rows.map(fromRow), this.#opts.maxEndedPerKey);
  }

  async prune(now: number): Promise<number> {
    const old = await this.#sql.run(
      'DELETE FROM browsers WHERE NOT recorded AND ended_at IS NOT NULL AND ended_at < $1',
      now - this.#opts.retentionMs,
    );
    const surplus = await this.#sql.run(
      `DELETE FROM browsers WHERE id IN (
         SELECT id FROM (
           SELECT id, ROW_NUMBER() OVER (PARTITION BY key_id ORDER BY started_at DESC, id) AS n
           FROM browsers WHERE ended_at IS NOT NULL AND NOT recorded
         ) AS ranked WHERE n > $1
       )`,
      this.#opts.maxEndedPerKey,
    );
    return old + surplus;
  }
}
