'use client';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RecordingEvent } from '#portal/service-client/key-browsers.ts';
import type { InspectedRecording } from '#portal/inspector/recordings.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { formatDate } from '#app/_lib/format.ts';
import { Input } from '#app/_ui/input.tsx';
import { Select } from '#app/_ui/select.tsx';
import { clock, filterRows, frameAt, framesOf, marksOf, rowsOf, type Row } from './timeline.ts';
import './inspector.css';

const SPEEDS = [0.5, 1, 2, 4, 8] as const;
const POLL_MS = 1500;

type Loaded = Omit<InspectedRecording, 'events'>;

/**
 * A recorded session: the screen as it was at each moment, a scrubber marked where pages opened
 * and things went wrong, and the console and network panels kept in step with it (click a row to
 * go there). A live session keeps growing while it is watched. `?t=` in the address opens it at a
 * moment, and the link to the moment shown can be copied for a teammate.
 */
export function Inspector({ teamId, browserId, startAt }: { teamId: string; browserId: string; startAt: number }) {
  const base = `/api/teams/${teamId}/recordings/${browserId}`;
  const [meta, setMeta] = useState<Loaded | null>(null);
  const [events, setEvents] = useState<RecordingEvent[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [t, setT] = useState(startAt);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const [panel, setPanel] = useState<'console' | 'network'>('console');
  const [needle, setNeedle] = useState('');
  const [badOnly, setBadOnly] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** The row last clicked, and the moment it went to: it stays the current row while the screen is there. */
  const [picked, setPicked] = useState<{ seq: number; t: number } | null>(null);
  const lastSeq = useRef(0);

  // Load, then follow a live session by asking only for what came after.
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = async () => {
      try {
        const { recording } = await api<{ recording: InspectedRecording }>('GET', `${base}?after=${lastSeq.current}`);
        if (stop) return;
        const { events: fresh, ...rest } = recording;
        if (fresh.length) {
          lastSeq.current = fresh.at(-1)!.seq;
          setEvents((old) => [...old, ...fresh]);
        }
        setMeta(rest);
        setError(null);
        if (recording.live) timer = setTimeout(() => void load(), POLL_MS);
      } catch (err) {
        if (!stop) setError(err instanceof ApiError ? err.message : 'The recording could not be read.');
      }
    };
    void load();
    return () => {
      stop = true;
      if (timer) clearTimeout(timer);
    };
  }, [base]);

  const frames = useMemo(() => framesOf(events), [events]);
  const control = meta?.control;
  const marks = useMemo(() => marksOf(events, control), [events, control]);
  const rows = useMemo(() => rowsOf(events, control), [events, control]);
  const end = Math.max(events.at(-1)?.t ?? 0, 1);
  const shown = useMemo(() => filterRows(rows, needle, badOnly).filter((r) => r.panel === panel), [rows, needle, badOnly, panel]);
  const frame = frameAt(frames, t);

  // Play: time runs at the chosen speed until the end (a live session's end moves on).
  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    let raf = 0;
    const tick = (now: number) => {
      const dt = (now - last) * speed;
      last = now;
      setT((v) => Math.min(v + dt, end));
      raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [playing, speed, end]);
  useEffect(() => {
    if (playing && t >= end && !meta?.live) setPlaying(false);
  }, [playing, t, end, meta?.live]);

  // The next frames are fetched ahead, so playing does not wait for them.
  useEffect(() => {
    const next = frames.filter((f) => f.t > t).slice(0, 4);
    for (const f of next) new Image().src = frameUrl(base, f.offset, f.length);
  }, [frames, t, base]);

  const seek = useCallback((to: number) => {
    setPlaying(false);
    setT(Math.max(0, to));
  }, []);

  const copyLink = () => {
    const url = new URL(window.location.href);
    url.searchParams.set('t', String(Math.round(t)));
    void navigator.clipboard?.writeText(url.href).then(
      () => setNotice('Link to this moment copied. Only members of this team can open it.'),
      () => setNotice(url.href),
    );
  };

  if (error && !meta) return <p role="alert">{error}</p>;
  if (!meta) return <p role="status">Loading the recording…</p>;
  const current = (picked?.t === t ? shown.find((r) => r.seq === picked.seq) : undefined) ?? currentRow(shown, t);
  return (
    <div className="inspector">
      {/* The key and the start are in the page's heading; the end here, in the portal's one date format. */}
      <p className="muted" data-testid="recording-end">
        {meta.live ? 'Live, still recording' : meta.endedAt ? `Ended ${formatDate(Date.parse(meta.endedAt))}` : 'Ended'}
      </p>
      <div className="inspector-screen">
        {frame ? (
          <img src={frameUrl(base, frame.offset, frame.length)} alt={`The screen at ${clock(t)}`} />
        ) : (
          <p className="muted">No screen was recorded yet.</p>
        )}
      </div>
      <div className="inspector-controls">
        <button
          type="button"
          className="btn btn-sm btn-primary"
          onClick={() => (t >= end ? (seek(0), setPlaying(true)) : setPlaying((p) => !p))}
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <label className="inspector-speed">
          Speed
          <Select className="input" value={String(speed)} onChoose={(v) => setSpeed(Number(v) as (typeof SPEEDS)[number])}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </Select>
        </label>
        <span className="inspector-clock" aria-live="off">
          {clock(t)} / {clock(end)}
        </span>
        <button type="button" className="btn btn-sm" onClick={copyLink}>
          Copy link to this moment
        </button>
        {notice && (
          <span role="status" className="muted">
            {notice}
          </span>
        )}
      </div>
      <div className="inspector-scrubber">
        <input
          type="range"
          aria-label="Position in the recording"
          aria-valuetext={clock(t)}
          min={0}
          max={end}
          step={100}
          value={Math.min(t, end)}
          onChange={(e) => seek(Number(e.target.value))}
        />
        <div className="inspector-marks" aria-hidden="true">
          {marks.map((m, i) => (
            <span key={i} className="inspector-mark" data-kind={m.kind} style={{ left: `${(m.t / end) * 100}%` }} />
          ))}
        </div>
      </div>
      <div className="inspector-panels">
        <div className="row inspector-filters">
          <div className="tabs" role="tablist" aria-label="Panels">
            {(['console', 'network'] as const).map((p) => (
              <button key={p} type="button" role="tab" aria-selected={panel === p} onClick={() => setPanel(p)}>
                {p === 'console' ? 'Console' : 'Network'} ({filterRows(rows, needle, badOnly).filter((r) => r.panel === p).length})
              </button>
            ))}
          </div>
          <Input className="input" aria-label="Filter" placeholder="Filter" value={needle} onType={setNeedle} />
          <label className="row">
            <input type="checkbox" checked={badOnly} onChange={(e) => setBadOnly(e.target.checked)} /> Problems only
          </label>
        </div>
        <ol className="inspector-rows" role="tabpanel" aria-label={panel === 'console' ? 'Console' : 'Network'}>
          {shown.length === 0 && <li className="muted">Nothing here{needle || badOnly ? ' for this filter' : ''}.</li>}
          {shown.map((r) => (
            <li key={r.seq} data-bad={r.bad || undefined} data-future={r.t > t || undefined} data-current={r === current || undefined}>
              <button
                type="button"
                onClick={() => {
                  // To the row's moment, or to the first frame of its page when the screen had not shown that page yet.
                  seek(r.seekTo);
                  setPicked({ seq: r.seq, t: Math.max(0, r.seekTo) });
                }}
                aria-label={`Go to ${clock(r.t)}: ${r.text}`}
              >
                <span className="inspector-at">{clock(r.t)}</span>
                <span className="inspector-text">{r.text}</span>
                <span className="inspector-note">{r.note}</span>
              </button>
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}

const frameUrl = (base: string, offset: number, length: number) => `${base}/screen?offset=${offset}&length=${length}`;

/** The last row at or before `t`: the one the screen shows the effect of. */
function currentRow(rows: readonly Row[], t: number): Row | null {
  let found: Row | null = null;
  for (const r of rows) if (r.t <= t) found = r;
  return found;
}
