import type { DatabaseSync } from 'node:sqlite';
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

type RawRow = Omit<HistoryRow, 'recorded'> & { recorded: number };
const fromRaw = (r: RawRow): HistoryRow => ({ ...r, recorded: r.recorded === 1 });

/**
 * The history in DATA_DIR/service.db. Each statement runs at once (synchronously) inside its
 * promise, so writes land in the order they were called.
 */
export class SqliteBrowserHistory implements BrowserHistory {
  readonly #db: DatabaseSync;
  readonly #opts: HistoryOptions;

  constructor(db: DatabaseSync, opts: HistoryOptions) {
    this.#db = db;
    this.#opts = opts;
  }

  async started({ id, keyId, nodeId, at, recorded = false }: BrowserStart): Promise<void> {
    this.#db
      .prepare('INSERT INTO browsers (id, key_id, node_id, started_at, recorded) VALUES (?, ?, ?, ?, ?)')
      .run(id, keyId, nodeId, at, recorded ? 1 : 0);
  }

  async ended(id: string, reason: string, at: number, last: PageState): Promise<void> {
    this.#db
      .prepare('UPDATE browsers SET ended_at = ?, end_reason = ?, url = ?, title = ?, tabs = ? WHERE id = ? AND ended_at IS NULL')
      .run(at, reason, last.page?.url ?? '', last.page?.title ?? '', last.tabs, id);
  }

  async observed(id: string, state: PageState): Promise<void> {
    this.#db
      .prepare('UPDATE browsers SET url = ?, title = ?, tabs = ? WHERE id = ? AND ended_at IS NULL')
      .run(state.page?.url ?? '', state.page?.title ?? '', state.tabs, id);
  }

  async recordingSize(id: string, bytes: number): Promise<void> {
    this.#db.prepare('UPDATE browsers SET recording_bytes = ? WHERE id = ?').run(bytes, id);
  }

  async get(id: string, keyId: string): Promise<BrowserRecord | undefined> {
    const row = this.#db.prepare(`SELECT ${HISTORY_COLUMNS} FROM browsers WHERE id = ? AND key_id = ?`).get(id, keyId) as
      RawRow | undefined;
    return row && toRecord(fromRaw(row));
  }

  async expiredRecordings(now: number): Promise<string[]> {
    const rows = this.#db
      .prepare('SELECT id FROM browsers WHERE recorded = 1 AND ended_at IS NOT NULL AND ended_at < ?')
      .all(now - this.#opts.recordingRetentionMs) as { id: string }[];
    return rows.map((r) => r.id);
  }

  async forgetRecording(id: string): Promise<void> {
    this.#db.prepare('UPDATE browsers SET recorded = 0, recording_bytes = 0 WHERE id = ?').run(id);
  }

  async endNode(nodeId: string, reason: string, at: number): Promise<string[]> {
    const rows = this.#db
      .prepare('UPDATE browsers SET ended_at = ?, end_reason = ? WHERE node_id = ? AND ended_at IS NULL RETURNING id')
      .all(at, reason, nodeId) as { id: string }[];
    return rows.map((r) => r.id).sort();
  }

  async endLeftovers(nodeId: string, at: number): Promise<number> {
    return (await this.endNode(nodeId, 'service-restarted', at)).length;
  }

  async list(keyId: string, now: number): Promise<BrowserRecord[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${HISTORY_COLUMNS} FROM browsers
         WHERE key_id = ? AND (ended_at IS NULL OR ended_at >= ? OR (recorded = 1 AND ended_at >= ?))
         ORDER BY started_at DESC, id`,
      )
      .all(keyId, now - this.#opts.retentionMs, now - this.#opts.recordingRetentionMs) as RawRow[];
    return listed(rows.map(fromRaw), this.#opts.maxEndedPerKey);
  }

  async prune(now: number): Promise<number> {
    const old = this.#db
      .prepare('DELETE FROM browsers WHERE recorded = 0 AND ended_at IS NOT NULL AND ended_at < ?')
      .run(now - this.#opts.retentionMs).changes;
    const surplus = this.#db
      .prepare(
        `DELETE FROM browsers WHERE id IN (
           SELECT id FROM (
             SELECT id, ROW_NUMBER() OVER (PARTITION BY key_id ORDER BY started_at DESC, id) AS n
             FROM browsers WHERE ended_at IS NOT NULL AND recorded = 0
           ) WHERE n > ?
         )`,
      )
      .run(this.#opts.maxEndedPerKey).changes;
    return Number(old) + Number(surplus);
  }
}
