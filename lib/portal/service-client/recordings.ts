import { z } from 'zod';
import { DomainError } from '#shared/errors.ts';

/**
 * The service's session recordings (docs/api.md, sections 5 and 6), read with a key as any client
 * would. Answers are validated; events keep their own fields (the inspector shows what it knows and
 * skips the rest), but every event must have its `seq`, `t` and `type`.
 */
const browserId = z.string().regex(/^br_[A-Za-z0-9_-]{32}$/);

const listed = z.object({
  browsers: z.array(
    z.object({
      id: browserId,
      status: z.enum(['live', 'ending', 'ended']),
      startedAt: z.iso.datetime(),
      endedAt: z.iso.datetime().nullable(),
      endReason: z.string().nullable(),
      page: z.object({ url: z.string().max(8192), title: z.string().max(2048) }).nullable(),
      tabs: z.number().int().min(0),
      recorded: z.boolean().optional(),
    }),
  ),
});

const event = z.looseObject({ seq: z.number().int().min(1), t: z.number().min(0), type: z.string().max(32) });
const recording = z.object({
  id: browserId,
  startedAt: z.iso.datetime(),
  endedAt: z.iso.datetime().nullable(),
  live: z.boolean(),
  screenBytes: z.number().int().min(0),
  events: z.array(event),
});

export type RecordedBrowser = {
  id: string;
  live: boolean;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  url: string;
  title: string;
};
export type Recording = z.infer<typeof recording>;
export type RecordingEvent = z.infer<typeof event>;

const TIMEOUT_MS = 5000;

/** The key's recorded browsers, live and ended; null when the service refuses the key. */
export async function listRecorded(serviceUrl: string, apiKey: string): Promise<RecordedBrowser[] | null> {
  const res = await call(serviceUrl, '/v0/browsers', apiKey);
  if (res.status === 401) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} to the list of browsers`);
  const body = listed.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent a list of browsers this portal cannot read');
  return body.data.browsers
    .filter((b) => b.recorded)
    .map((b) => ({
      id: b.id,
      live: b.status !== 'ended',
      startedAt: Date.parse(b.startedAt),
      endedAt: b.endedAt ? Date.parse(b.endedAt) : null,
      endReason: b.endReason,
      url: b.page?.url ?? '',
      title: b.page?.title ?? '',
    }));
}

export async function readRecording(serviceUrl: string, apiKey: string, id: string, after: number): Promise<Recording | null> {
  const res = await call(serviceUrl, `/v0/browsers/${encodeURIComponent(id)}/recording?after=${after}`, apiKey);
  if (res.status === 404) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} for a recording`);
  const body = recording.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent a recording this portal cannot read');
  return body.data;
}

/** One byte range of the recording's screen, as the service answers it (206, 416 or 404), to pass on. */
export async function readScreen(serviceUrl: string, apiKey: string, id: string, range: string): Promise<Response> {
  return call(serviceUrl, `/v0/browsers/${encodeURIComponent(id)}/recording/screen`, apiKey, { range });
}

async function call(serviceUrl: string, path: string, apiKey: string, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return await fetch(`${serviceUrl}${path}`, {
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new DomainError('unavailable', 'the browser service cannot be reached');
  }
}
