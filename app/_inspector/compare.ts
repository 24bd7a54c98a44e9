import type { RecordingEvent } from '#portal/service-client/key-browsers.ts';
import { frameAt, framesOf, rowsOf, type Frame, type Row } from './timeline.ts';

/**
 * Two recordings side by side (issue #14, item 5): their page loads lined up step by step, the
 * first step where they differ found, and for each step what each run showed and what went wrong
 * there. Plain data, shared by the comparison page and its tests.
 */
export type Step = {
  /** When the page began to load, ms into the recording. */
  t: number;
  url: string;
  /** The screen once the page had settled: the last frame before the next page began (or the end). */
  frame: Frame | null;
  /** Console errors, uncaught errors and failed requests from this page load until the next. */
  problems: Row[];
};
export type Side = { steps: Step[]; end: number };
/** Step `index` of both runs: one side's is null when that run opened fewer pages. */
export type Pair = { index: number; a: Step | null; b: Step | null; same: boolean };
export type Comparison = { pairs: Pair[]; firstDifference: number | null };

/** An address as the comparison sees it: its fragment left out (a jump within a page is no new page). */
const comparable = (url: string): string => url.replace(/#.*$/s, '');

/** A run's page loads, each with the screen it settled on and its problems. */
export function sideOf(events: readonly RecordingEvent[]): Side {
  const end = events.at(-1)?.t ?? 0;
  const loads = events.filter((e) => e.type === 'navigation' && !e.sameDocument && typeof e.url === 'string');
  const frames = framesOf(events);
  const bad = rowsOf(events).filter((r) => r.bad);
  const steps = loads.map((e, i): Step => {
    const until = loads[i + 1]?.t ?? end + 1;
    const frame = frameAt(
      frames.filter((f) => f.t >= e.t && f.t < until),
      until,
    );
    return { t: e.t, url: String(e.url), frame, problems: bad.filter((r) => r.t >= e.t && r.t < until) };
  });
  return { steps, end };
}

/** Line two runs up by page load; the first step whose addresses differ (or where one run stops) is the difference. */
export function compare(a: Side, b: Side): Comparison {
  const pairs: Pair[] = [];
  let firstDifference: number | null = null;
  for (let i = 0; i < Math.max(a.steps.length, b.steps.length); i++) {
    const [x, y] = [a.steps[i] ?? null, b.steps[i] ?? null];
    const same = x !== null && y !== null && comparable(x.url) === comparable(y.url);
    if (!same && firstDifference === null) firstDifference = i;
    pairs.push({ index: i, a: x, b: y, same });
  }
  return { pairs, firstDifference };
}
