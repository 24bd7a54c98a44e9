import { z } from 'zod';
import { ValidationFailed } from '../errors.ts';

/**
 * A search of a key's session recordings for events (docs/api.md, "Session recordings"):
 * "which runs hit a 500 from this host this week" is `status=5xx&host=example.com&since=…`.
 * The query string of `GET /v0/recordings/events`, shared by the service, which runs it, and the
 * portal, which checks it before asking each of a team's keys.
 */
export const EVENT_KINDS = ['navigation', 'request', 'console', 'error', 'dialog'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export const MAX_EVENT_MATCHES = 500;
const DAY_MS = 86_400_000;

const instant = z.iso.datetime({ offset: true, error: 'must be a date and time such as 2026-11-23T08:00:00Z' });
const schema = z
  .object({
    /** Text the event's address, message or text holds (any case). */
    q: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
    /** Comma-separated kinds; default all of them. */
    type: z
      .string()
      .transform((s) => s.split(','))
      .pipe(z.array(z.enum(EVENT_KINDS, { error: `each must be one of ${EVENT_KINDS.join(', ')}` })).max(EVENT_KINDS.length))
      .optional(),
    /** A status (`404`), a class of them (`5xx`), or `failed`: requests that got no answer. */
    status: z
      .string()
      .regex(/^(?:[1-5](?:\d\d|xx)|failed)$/, 'must be a status such as 404, a class such as 5xx, or failed')
      .optional(),
    /** A host: the address's own, or one under it (`example.com` takes `api.example.com`). */
    host: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9.-]{1,253}(?::\d{1,5})?$/, 'must be a host name such as example.com')
      .optional(),
    since: instant.optional(),
    until: instant.optional(),
    limit: z
      .string()
      .regex(/^\d{1,4}$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().min(1, 'must be at least 1').max(MAX_EVENT_MATCHES, `must be at most ${MAX_EVENT_MATCHES}`))
      .optional(),
  })
  .strict();

export type EventQuery = {
  text: string | null;
  kinds: ReadonlySet<EventKind>;
  status: { from: number; to: number } | 'failed' | null;
  host: string | null;
  /** Milliseconds since the epoch; events at or after `since` and before `until`. */
  since: number;
  until: number;
  limit: number;
};

/**
 * Check a query string (as its parameters) and read it; `now` bounds the default window, the last 7
 * days. Throws ValidationFailed naming each offending parameter, and any given twice.
 */
export function parseEventQuery(params: URLSearchParams, now = Date.now()): EventQuery {
  const raw: Record<string, string> = {};
  const issues: { field: string; message: string }[] = [];
  for (const [name, value] of params) {
    if (name in raw) issues.push({ field: name, message: 'must be given once' });
    raw[name] = value;
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    for (const i of r.error.issues) {
      const field = i.code === 'unrecognized_keys' ? i.keys.join(', ') : String(i.path[0] ?? 'query');
      issues.push({ field, message: i.code === 'unrecognized_keys' ? 'is not a parameter of this search' : i.message });
    }
  }
  if (issues.length) throw new ValidationFailed(issues, 'the search of recordings does not match its schema');
  const q = r.data!;
  const until = q.until ? Date.parse(q.until) : now;
  const since = q.since ? Date.parse(q.since) : until - 7 * DAY_MS;
  if (since >= until) throw new ValidationFailed([{ field: 'since', message: 'must be before until' }]);
  const status = q.status === undefined ? null : q.status === 'failed' ? 'failed' : statusRange(q.status);
  return {
    text: q.q?.toLowerCase() ?? null,
    kinds: new Set(q.type ?? EVENT_KINDS),
    status,
    host: q.host ?? null,
    since,
    until,
    limit: q.limit ?? 100,
  };
}

function statusRange(s: string): { from: number; to: number } {
  if (s.endsWith('xx')) {
    const from = Number(s[0]) * 100;
    return { from, to: from + 99 };
  }
  return { from: Number(s), to: Number(s) };
}
