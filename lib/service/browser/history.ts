import type { DatabaseSync } from 'node:sqlite';
import type { PageState } from './tab-watch.ts';

/** One browser of a key, live or ended, as `GET /v0/browsers` lists it. */
export type BrowserRecord = {
  id: string;
  startedAt: number;
  endedAt: number | null;
  /** Why it ended (an EndReason, or `service-restarted`); null while it lives. */
  endReason: string | null;
  /** The last page and tab count seen; for a live browser the caller puts the current ones in. */
  state: PageState;
  /** Recorded: what the recording holds so far (0 while live), or null when not recorded. */
  recordingBytes: number | null;
};

type Row = {
  id: string;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  url: string;
  title: string;
  tabs: number;
  recorded: number;
  recording_bytes: number;
};

export type HistoryOptions = {
  /** How long an ended browser stays listed. */
  retentionMs: number;
  /** How long a recorded one stays listed (with its recording). */
  recordingRetentionMs: number;
  /** How many ended browsers of one key stay listed at most. */
  maxEndedPerKey: number;
};

/**
 * Every key's browsers, live and recently ended, in the service's database (DATA_DIR/service.db),
 * so the list survives a restart and a restarted service can say how its predecessor's ended.
 */
export class BrowserHistory {
  readonly #db: DatabaseSync;
  readonly #opts: HistoryOptions;

  constructor(db: DatabaseSync, opts: HistoryOptions) {
    this.#db = db;
    this.#opts = opts;
  }

  started(id: string, keyId: string, at: number, recorded = false): void {
    this.#db.prepare('INSERT INTO browsers (id, key_id, started_at, recorded) VALUES (?, ?, ?, ?)').run(id, keyId, at, recorded ? 1 : 0);
  }

  ended(id: string, reason: string, at: number, last: PageState): void {
    this.#db
      .prepare('UPDATE browsers SET ended_at = ?, end_reason = ?, url = ?, title = ?, tabs = ? WHERE id = ? AND ended_at IS NULL')
      .run(at, reason, last.page?.url ?? '', last.page?.title ?? '', last.tabs, id);
  }

  recordingSize(id: string, bytes: number): void {
    this.#db.prepare('UPDATE browsers SET recording_bytes = ? WHERE id = ?').run(bytes, id);
  }

  /** One of the key's browsers, live or kept, or undefined. */
  get(id: string, keyId: string): BrowserRecord | undefined {
    const row = this.#db
      .prepare(
        'SELECT id, started_at, ended_at, end_reason, url, title, tabs, recorded, recording_bytes FROM browsers WHERE id = ? AND key_id = ?',
      )
      .get(id, keyId) as Row | undefined;
    return row && record(row);
  }

  /** Recorded browsers that ended longer than the recording retention ago: their recordings go. */
  expiredRecordings(now: number): string[] {
    const rows = this.#db
      .prepare('SELECT id FROM browsers WHERE recorded = 1 AND ended_at IS NOT NULL AND ended_at < ?')
      .all(now - this.#opts.recordingRetentionMs) as { id: string }[];
    return rows.map((r) => r.id);
  }

  forgetRecording(id: string): void {
    this.#db.prepare('UPDATE browsers SET recorded = 0, recording_bytes = 0 WHERE id = ?').run(id);
  }

  /** Browsers a previous run of the service left without an end: they ended with it. */
  endLeftovers(at: number): number {
    return Number(
      this.#db.prepare("UPDATE browsers SET ended_at = ?, end_reason = 'service-restarted' WHERE ended_at IS NULL").run(at).changes,
    );
  }

  /** The key's browsers, newest first: every live one and the ended ones still kept. */
  list(keyId: string, now: number): BrowserRecord[] {
    const rows = this.#db
      .prepare(
        `SELECT id, started_at, ended_at, end_reason, url, title, tabs, recorded, recording_bytes FROM browsers
         WHERE key_id = ? AND (ended_at IS NULL OR ended_at >= ? OR (recorded = 1 AND ended_at >= ?))
         ORDER BY started_at DESC, id`,
      )
      .all(keyId, now - this.#opts.retentionMs, now - this.#opts.recordingRetentionMs) as Row[];
    let ended = 0;
    return rows.filter((r) => r.ended_at === null || r.recorded === 1 || ++ended <= this.#opts.maxEndedPerKey).map(record);
  }

  /**
   * Forget what is past keeping: older than the retention, or beyond the newest ended ones of each
   * key. A recorded one stays as long as its recording (Recordings.prune removes that first).
   */
  prune(now: number): number {
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

function record(r: Row): BrowserRecord {
  return {
    id: r.id,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    endReason: r.end_reason,
    state: { tabs: r.tabs, page: r.url || r.title ? { url: r.url, title: r.title } : null },
    recordingBytes: r.recorded === 1 ? r.recording_bytes : null,
  };
}
