import type { PageState } from './tab-watch.ts';

/** One browser of a key, live or ended, as `GET /v0/browsers` lists it. */
export type BrowserRecord = {
  id: string;
  /**
   * The service node that runs (or ran) it: the cluster's NODE_ID, or SINGLE_NODE. A live record of
   * another node has no instance here; its state is the last one that node observed.
   */
  nodeId: string;
  startedAt: number;
  endedAt: number | null;
  /** Why it ended (an EndReason, `service-restarted`, or what the cluster layer gave endNode); null while it lives. */
  endReason: string | null;
  /** The last page and tab count seen (at the end, or by `observed`); for a local live browser the caller puts the current ones in. */
  state: PageState;
  /** Recorded: what the recording holds so far (0 while live), or null when not recorded. */
  recordingBytes: number | null;
};

/** The node id of a service that runs alone (no REDIS_URL): every browser of its history. */
export const SINGLE_NODE = '';

export type BrowserStart = {
  id: string;
  keyId: string;
  /** The node that runs it (SINGLE_NODE when the service runs alone). */
  nodeId: string;
  at: number;
  recorded?: boolean;
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
 * Every key's browsers, live and recently ended, in the service's database (SQLite in
 * DATA_DIR/service.db, or PostgreSQL at DATABASE_URL, shared by every node), so the list survives a
 * restart, covers every node, and a restarted node can say how its predecessor's browsers ended.
 * Writes about one browser are applied in the order they were called.
 */
export interface BrowserHistory {
  started(start: BrowserStart): Promise<void>;
  /** Record its end, once: a second end of the same browser changes nothing. */
  ended(id: string, reason: string, at: number, last: PageState): Promise<void>;
  /** The page and tabs a live browser shows now, so that other nodes can list it (ignored once ended). */
  observed(id: string, state: PageState): Promise<void>;
  recordingSize(id: string, bytes: number): Promise<void>;
  /** One of the key's browsers, live or kept, or undefined. */
  get(id: string, keyId: string): Promise<BrowserRecord | undefined>;
  /** Recorded browsers that ended longer than the recording retention ago: their recordings go. */
  expiredRecordings(now: number): Promise<string[]>;
  forgetRecording(id: string): Promise<void>;
  /** Mark every still-live browser of `nodeId` ended with `reason` (a dead node's); returns their ids. */
  endNode(nodeId: string, reason: string, at: number): Promise<string[]>;
  /** This node's browsers a previous run of it left without an end: they ended with it (`service-restarted`). */
  endLeftovers(nodeId: string, at: number): Promise<number>;
  /** The key's browsers of every node, newest first: every live one and the ended ones still kept. */
  list(keyId: string, now: number): Promise<BrowserRecord[]>;
  /**
   * Forget what is past keeping: older than the retention, or beyond the newest ended ones of each
   * key. A recorded one stays as long as its recording (Recordings.prune removes that first).
   */
  prune(now: number): Promise<number>;
}

/** A row of `browsers` as both stores read it (PostgreSQL's BIGINT and BOOLEAN already converted). */
export type HistoryRow = {
  id: string;
  node_id: string;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  url: string;
  title: string;
  tabs: number;
  recorded: boolean;
  recording_bytes: number;
};

export const HISTORY_COLUMNS = 'id, node_id, started_at, ended_at, end_reason, url, title, tabs, recorded, recording_bytes';

export function toRecord(r: HistoryRow): BrowserRecord {
  return {
    id: r.id,
    nodeId: r.node_id,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    endReason: r.end_reason,
    state: { tabs: r.tabs, page: r.url || r.title ? { url: r.url, title: r.title } : null },
    recordingBytes: r.recorded ? r.recording_bytes : null,
  };
}

/** What `list` keeps of a key's rows (newest first): every live and recorded one, and the newest `maxEnded` others. */
export function listed(rows: readonly HistoryRow[], maxEnded: number): BrowserRecord[] {
  let ended = 0;
  return rows.filter((r) => r.ended_at === null || r.recorded || ++ended <= maxEnded).map(toRecord);
}
