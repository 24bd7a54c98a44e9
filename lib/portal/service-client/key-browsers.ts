import { z } from 'zod';
import { DomainError } from '#shared/errors.ts';

/**
 * The service's browsers of one key: its list, its stop (docs/api.md, section 5), its session
 * recordings (section 6) and its saved profiles (section 7), called as any client would. Every answer is validated: a service of
 * another version, or something else at that address, gives a clear error instead of a half-read
 * one. Events keep their own fields (the inspector shows what it knows and skips the rest), but
 * each must have its `seq`, `t` and `type`.
 */
const browserId = z.string().regex(/^br_[A-Za-z0-9_-]{32}$/);
const cut = (max: number) => (text: string) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** A profile's name as the service allows it (docs/api.md, section 1). */
export const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

const listed = z.object({
  browsers: z.array(
    z.object({
      id: browserId,
      status: z.enum(['live', 'ending', 'ended']),
      startedAt: z.iso.datetime(),
      endedAt: z.iso.datetime().nullable(),
      endReason: z.string().nullable(),
      // A page chooses its own address and title (a data: address can be megabytes, and an untitled
      // page's title is its address): they are cut here, not refused, or one page would make the
      // whole list unreadable.
      page: z.object({ url: z.string().transform(cut(8192)), title: z.string().transform(cut(2048)) }).nullable(),
      tabs: z.number().int().min(0),
      recorded: z.boolean(),
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

const found = z.object({
  matches: z.array(z.object({ browser: browserId, browserStartedAt: z.iso.datetime(), at: z.iso.datetime(), event })).max(500),
  sessions: z.number().int().min(0),
  truncated: z.boolean(),
});
/** Events of a key's recordings that matched a search (docs/api.md, section 6), newest first. */
export type FoundEvents = {
  matches: { browser: string; browserStartedAt: number; at: number; event: RecordingEvent }[];
  sessions: number;
  truncated: boolean;
};

const profiles = z.object({
  profiles: z
    .array(
      z.object({
        name: z.string().regex(PROFILE_NAME),
        bytes: z.number().int().min(0),
        updatedAt: z.iso.datetime(),
        inUse: z.boolean(),
      }),
    )
    .max(10_000),
});
/** One saved profile of a key: its stored size, the end of its last save, and whether a persisting browser holds it now. */
export type KeyProfile = { name: string; bytes: number; updatedAt: number; inUse: boolean };
/** What the service answered to a delete: done, no such profile, or held by a persisting browser. */
export type ProfileDeleted = 'deleted' | 'not-found' | 'in-use' | 'key-refused';

/** One browser of a key, live (or ending) or ended, started by whoever holds the key. */
export type KeyBrowser = {
  id: string;
  live: boolean;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  url: string;
  title: string;
  tabs: number;
  recorded: boolean;
};
export type Recording = z.infer<typeof recording>;
export type RecordingEvent = z.infer<typeof event>;

/**
 * The key's browsers, newest first (`live`: only those still running); null when the service does
 * not accept the key (revoked there, or another service's).
 */
export async function listKeyBrowsers(serviceUrl: string, apiKey: string, only?: 'live'): Promise<KeyBrowser[] | null> {
  const res = await askService(serviceUrl, only ? `/v0/browsers?status=${only}` : '/v0/browsers', apiKey);
  if (res.status === 401) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} to the list of browsers`);
  const body = listed.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent a list of browsers this portal cannot read');
  return body.data.browsers.map((b) => ({
    id: b.id,
    live: b.status !== 'ended',
    startedAt: Date.parse(b.startedAt),
    endedAt: b.endedAt ? Date.parse(b.endedAt) : null,
    endReason: b.endReason,
    url: b.page?.url ?? '',
    title: b.page?.title ?? '',
    tabs: b.tabs,
    recorded: b.recorded,
  }));
}

/** End one of the key's browsers. False when the service does not know it (already ended, or another key's). */
export async function stopKeyBrowser(serviceUrl: string, apiKey: string, id: string): Promise<boolean> {
  const res = await askService(serviceUrl, `/v0/browsers/${encodeURIComponent(id)}`, apiKey, { method: 'DELETE' });
  if (res.status === 404) return false;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} when asked to stop a browser`);
  return true;
}

/** How a stop that saves (`DELETE /v0/browsers/{id}?saveAs=`) came out, in the service's answers (docs/api.md, section 5). */
export type SavedAs = 'saved' | 'not-found' | 'in-use' | 'bad-name' | 'key-refused';

/**
 * End one of the key's live browsers and save its state into the key's profile `name` as it ends
 * (`name` already checked against PROFILE_NAME). The service answers once the profile is saved,
 * which waits for Chromium to write out its stores: given a minute, not the usual five seconds.
 */
export async function stopKeyBrowserSavingAs(serviceUrl: string, apiKey: string, id: string, name: string): Promise<SavedAs> {
  const path = `/v0/browsers/${encodeURIComponent(id)}?saveAs=${encodeURIComponent(name)}`;
  const res = await askService(serviceUrl, path, apiKey, { method: 'DELETE', timeoutMs: 60_000 });
  if (res.status === 404) return 'not-found';
  if (res.status === 409) return 'in-use';
  if (res.status === 400) return 'bad-name';
  if (res.status === 401) return 'key-refused';
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} when asked to stop a browser and save it`);
  return 'saved';
}

/** The recording's events after `after`; null when the key has no recording of that browser. */
export async function readRecording(serviceUrl: string, apiKey: string, id: string, after: number): Promise<Recording | null> {
  const res = await askService(serviceUrl, `/v0/browsers/${encodeURIComponent(id)}/recording?after=${after}`, apiKey);
  if (res.status === 404) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} for a recording`);
  const body = recording.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent a recording this portal cannot read');
  return body.data;
}

/**
 * Search the key's recordings for events; `query` is the service's query string (checked by the
 * caller with lib/shared/protocol/recording-search.ts). Null when the service does not take the key.
 */
export async function searchKeyRecordings(serviceUrl: string, apiKey: string, query: URLSearchParams): Promise<FoundEvents | null> {
  const res = await askService(serviceUrl, `/v0/recordings/events?${query}`, apiKey);
  if (res.status === 401) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} to a search of recordings`);
  const body = found.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent search results this portal cannot read');
  return {
    ...body.data,
    matches: body.data.matches.map((m) => ({ ...m, browserStartedAt: Date.parse(m.browserStartedAt), at: Date.parse(m.at) })),
  };
}

/** One byte range of the recording's screen, as the service answers it (206, 416 or 404), to pass on. */
export function readScreen(serviceUrl: string, apiKey: string, id: string, range: string): Promise<Response> {
  return askService(serviceUrl, `/v0/browsers/${encodeURIComponent(id)}/recording/screen`, apiKey, { headers: { range } });
}

/** The key's saved profiles, by name; null when the service does not accept the key. */
export async function listKeyProfiles(serviceUrl: string, apiKey: string): Promise<KeyProfile[] | null> {
  const res = await askService(serviceUrl, '/v0/profiles', apiKey);
  if (res.status === 401) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} to the list of profiles`);
  const body = profiles.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent a list of profiles this portal cannot read');
  return body.data.profiles.map((p) => ({ ...p, updatedAt: Date.parse(p.updatedAt) }));
}

/** Delete one of the key's saved profiles (`name` already checked against PROFILE_NAME). */
export async function deleteKeyProfile(serviceUrl: string, apiKey: string, name: string): Promise<ProfileDeleted> {
  const res = await askService(serviceUrl, `/v0/profiles/${encodeURIComponent(name)}`, apiKey, { method: 'DELETE' });
  if (res.status === 404) return 'not-found';
  if (res.status === 409) return 'in-use';
  if (res.status === 401) return 'key-refused';
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} when asked to delete a profile`);
  return 'deleted';
}

async function askService(
  serviceUrl: string,
  path: string,
  apiKey: string,
  { method = 'GET', headers = {}, timeoutMs = 5000 }: { method?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Response> {
  try {
    return await fetch(`${serviceUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    throw new DomainError('unavailable', 'the browser service cannot be reached');
  }
}
