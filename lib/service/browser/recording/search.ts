import type { EventKind, EventQuery } from '#shared/protocol/recording-search.ts';
import { scanEvents } from './reader.ts';
import type { RecordedEvent } from './writer.ts';

/** A recorded session to search: its browser, when it ran, and its folder. */
export type SearchedSession = { id: string; startedAt: number; endedAt: number | null; dir: string };
/** An event that matched, with its browser and when it happened (ms since the epoch). */
export type EventMatch = { browser: string; browserStartedAt: number; at: number; event: RecordedEvent };

/** How many sessions one search reads at most, newest first; the answer says when it stopped there. */
export const MAX_SESSIONS_SEARCHED = 2000;
/** How many bytes of event files one search reads at most (a session's cap is 200 MB): the answer says when it stopped. */
export const MAX_BYTES_SEARCHED = 256 * 1024 * 1024;

/**
 * Search recordings for events (docs/api.md, "Session recordings"): sessions that overlap the
 * window, newest first, read a line at a time from their append-only event files (nothing is
 * indexed while recording, so recording costs nothing more), at most MAX_BYTES_SEARCHED of them
 * in one search; the newest matches first.
 */
export async function searchRecordings(
  sessions: readonly SearchedSession[],
  q: EventQuery,
  now = Date.now(),
  budget = { bytes: MAX_BYTES_SEARCHED },
): Promise<{ matches: EventMatch[]; sessions: number; truncated: boolean }> {
  const overlapping = sessions
    .filter((s) => s.startedAt < q.until && (s.endedAt ?? now) >= q.since)
    .sort((a, b) => b.startedAt - a.startedAt);
  const candidates = overlapping.slice(0, MAX_SESSIONS_SEARCHED);
  // Only the newest `limit` are kept while reading: a query that matches everything holds no more.
  let found: EventMatch[] = [];
  let dropped = false;
  const newestFirst = (a: EventMatch, b: EventMatch) => b.at - a.at || a.event.seq - b.event.seq;
  let searched = 0;
  let whole = overlapping.length === candidates.length;
  for (const s of candidates) {
    searched++;
    const read = await scanEvents(
      s.dir,
      (event) => {
        const at = s.startedAt + event.t;
        if (at < q.since || at >= q.until || !eventMatches(event, q)) return;
        found.push({ browser: s.id, browserStartedAt: s.startedAt, at, event });
        if (found.length >= 4 * q.limit) {
          found = found.sort(newestFirst).slice(0, q.limit);
          dropped = true;
        }
      },
      budget,
    );
    if (!read) {
      whole = false;
      break;
    }
  }
  found.sort(newestFirst);
  return { matches: found.slice(0, q.limit), sessions: searched, truncated: dropped || found.length > q.limit || !whole };
}

const KINDS: ReadonlySet<string> = new Set<EventKind>(['navigation', 'request', 'console', 'error', 'dialog']);

/** Whether one event is what the query asks for (its time window aside). */
export function eventMatches(e: RecordedEvent, q: EventQuery): boolean {
  if (!KINDS.has(e.type) || !q.kinds.has(e.type as EventKind)) return false;
  if (e.type === 'navigation' && e.sameDocument) return false;
  if (q.status !== null) {
    if (e.type !== 'request') return false;
    if (
      q.status === 'failed' ? !e.failed || e.canceled : typeof e.status !== 'number' || e.status < q.status.from || e.status > q.status.to
    )
      return false;
  }
  if (q.host !== null && !onHost(e.url, q.host)) return false;
  if (q.text !== null) {
    const haystack = [e.url, e.text, e.message, e.failed]
      .filter((v) => typeof v === 'string')
      .join('\n')
      .toLowerCase();
    if (!haystack.includes(q.text)) return false;
  }
  return true;
}

/** Whether `url` is on `host` or a host under it; a port in `host` must match too. */
function onHost(url: unknown, host: string): boolean {
  if (typeof url !== 'string') return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const own = host.includes(':') ? u.host : u.hostname;
  return own === host || own.endsWith(`.${host}`);
}
