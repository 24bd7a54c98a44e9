import type { RecordingEvent } from '#portal/service-client/key-browsers.ts';
import type { ControlSpan } from '#portal/inspector/recordings.ts';

/**
 * What the inspector makes of a recording's events (docs/api.md, section 6): the frames to show at
 * each moment, the marks on the scrubber, and the rows of its panels.
 */
export type Frame = { t: number; offset: number; length: number; tab?: string };
export type Mark = { t: number; kind: 'navigation' | 'error' | 'control' };
export type Row = {
  seq: number;
  t: number;
  panel: 'console' | 'network';
  /** Errors, failed requests and answers of 400 or more. */
  bad: boolean;
  text: string;
  /** Shown beside the text: a level, a status, a duration. */
  note: string;
  /**
   * Where a click on the row goes: its moment, or, when the frame last taken by then still shows
   * the page before the row's own (a page's first frame comes after its first events), that page's
   * first frame.
   */
  seekTo: number;
};

export function framesOf(events: readonly RecordingEvent[]): Frame[] {
  return events
    .filter((e) => e.type === 'frame')
    .map((e) => ({ t: e.t, offset: Number(e.offset), length: Number(e.length), ...(typeof e.tab === 'string' ? { tab: e.tab } : {}) }));
}

/** The frame on screen at `t`: the last one taken at or before it (the first, before any). */
export function frameAt(frames: readonly Frame[], t: number): Frame | null {
  let lo = 0;
  let hi = frames.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid]!.t <= t) [found, lo] = [mid, mid + 1];
    else hi = mid - 1;
  }
  return frames[Math.max(0, found)] ?? null;
}

/**
 * The moment to show for an event at `t` in `tab`: `t` itself, unless the frame on screen then was
 * taken before the tab's page of that moment opened (at `opened`); then the first frame of the tab
 * taken since (none yet: `t`).
 */
function momentOf(frames: readonly Frame[], t: number, opened: number | undefined, tab: string | undefined): number {
  if (opened === undefined) return t;
  const shown = frameAt(frames, t);
  if (!shown || shown.t >= opened) return t;
  const first = frames.find((f) => f.t >= opened && (tab === undefined || f.tab === undefined || f.tab === tab));
  return first ? Math.max(first.t, t) : t;
}

/** When the page of `tab` at `t` opened: the last navigation to a new page at or before it. */
function openedAt(navigations: ReadonlyMap<string, number[]>, tab: unknown, t: number): number | undefined {
  const times = typeof tab === 'string' ? navigations.get(tab) : undefined;
  return times?.findLast((n) => n <= t);
}

/** A request that failed or was answered 400 or more; a canceled one (the page left, a download took over) is not. */
const isBadRequest = (e: RecordingEvent) => e.type === 'request' && ((Boolean(e.failed) && !e.canceled) || Number(e.status) >= 400);

export function marksOf(events: readonly RecordingEvent[], control: readonly ControlSpan[] = []): Mark[] {
  const marks: Mark[] = control.map((c) => ({ t: c.t, kind: 'control' }));
  for (const e of events) {
    if (e.type === 'navigation' && !e.sameDocument) marks.push({ t: e.t, kind: e.failed ? 'error' : 'navigation' });
    else if (e.type === 'error' || (e.type === 'console' && e.level === 'error') || isBadRequest(e)) marks.push({ t: e.t, kind: 'error' });
  }
  return marks;
}

/** The rows of both panels, in time order; who had control (portal sessions) is told in the console's. */
export function rowsOf(events: readonly RecordingEvent[], control: readonly ControlSpan[] = []): Row[] {
  // Control rows are the portal's, not the service's events: they number below zero, apart from `seq`.
  const rows: Row[] = control.map((c, i) => ({
    seq: -1 - i,
    t: c.t,
    panel: 'console',
    bad: false,
    text:
      c.name === null
        ? 'Nobody has control'
        : i > 0 && control[i - 1]!.name !== null
          ? `${c.name} took over control`
          : `${c.name} has control`,
    note: 'control',
    seekTo: c.t,
  }));
  const frames = framesOf(events);
  const navigations = new Map<string, number[]>();
  for (const e of events) {
    if (e.type !== 'navigation' || e.sameDocument || typeof e.tab !== 'string') continue;
    navigations.set(e.tab, [...(navigations.get(e.tab) ?? []), e.t]);
  }
  const add = (e: RecordingEvent, row: Omit<Row, 'seekTo'>) => {
    const tab = typeof e.tab === 'string' ? e.tab : undefined;
    rows.push({ ...row, seekTo: momentOf(frames, row.t, openedAt(navigations, tab, row.t), tab) });
  };
  for (const e of events) {
    if (e.type === 'console') {
      add(e, {
        seq: e.seq,
        t: e.t,
        panel: 'console',
        bad: e.level === 'error',
        text: String(e.text ?? ''),
        note: String(e.level ?? 'log'),
      });
    } else if (e.type === 'error') {
      add(e, { seq: e.seq, t: e.t, panel: 'console', bad: true, text: String(e.text ?? ''), note: 'uncaught' });
    } else if (e.type === 'navigation' && !e.sameDocument && e.failed) {
      // A page that did not load: the address asked for, and why (the net error, or the egress proxy's words).
      const why = String(e.reason ?? String(e.failed).replace(/^net::/, ''));
      add(e, { seq: e.seq, t: e.t, panel: 'console', bad: true, text: `Could not open ${String(e.url)}: ${why}`, note: 'page' });
    } else if (e.type === 'navigation' && !e.sameDocument) {
      add(e, { seq: e.seq, t: e.t, panel: 'console', bad: false, text: `Navigated to ${String(e.url)}`, note: 'page' });
    } else if (e.type === 'dialog') {
      add(e, {
        seq: e.seq,
        t: e.t,
        panel: 'console',
        bad: false,
        text: `${String(e.dialogType)}: ${String(e.message)}`,
        note: 'dialog',
      });
    } else if (e.type === 'download') {
      add(e, {
        seq: e.seq,
        t: e.t,
        panel: 'console',
        bad: false,
        text: `Downloaded ${String(e.name)}`,
        note: `${Number(e.size)} bytes`,
      });
    } else if (e.type === 'request') {
      // A request is placed where it began, so clicking it shows the screen as it was sent.
      const start = typeof e.start === 'number' ? e.start : e.t;
      const outcome = e.canceled ? 'canceled' : e.failed ? String(e.failed).replace(/^net::/, '') : String(e.status ?? '');
      add(e, {
        seq: e.seq,
        t: start,
        panel: 'network',
        bad: isBadRequest(e),
        text: `${String(e.method)} ${String(e.url)}`,
        note: `${outcome} · ${Number(e.ms ?? 0)} ms`,
      });
    }
  }
  return rows.sort((a, b) => a.t - b.t || a.seq - b.seq);
}

/** Rows whose text or note holds `needle` (any case), and only the bad ones when asked. */
export function filterRows(rows: readonly Row[], needle: string, badOnly: boolean): Row[] {
  const n = needle.trim().toLowerCase();
  return rows.filter((r) => (!badOnly || r.bad) && (!n || r.text.toLowerCase().includes(n) || r.note.toLowerCase().includes(n)));
}

/** `m:ss.t` from the session's start. */
export function clock(ms: number): string {
  const tenths = Math.max(0, Math.floor(ms / 100));
  const s = Math.floor(tenths / 10);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}.${tenths % 10}`;
}
