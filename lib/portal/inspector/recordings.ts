import { BadRequest, NotFound } from '../errors.ts';
import { eachTeamKey, type Vault } from '../keys/vault.ts';
import {
  listKeyBrowsers,
  readRecording,
  readScreen,
  searchKeyRecordings,
  type KeyBrowser,
  type Recording,
  type RecordingEvent,
} from '../service-client/key-browsers.ts';
import { parseEventQuery, type EventQuery } from '#shared/protocol/recording-search.ts';
import { requireRole, type Actor } from '../teams/access.ts';
import type { BrowserDirectory } from '../live/directory.ts';

/**
 * A recorded session of one of the team's keys, whoever started it; `name` is the one its starter
 * gave it when the portal started it, null for a script's.
 */
export type TeamRecording = KeyBrowser & { keyName: string; name: string | null };
/** From `t` (ms into the recording) on, `name` had control in the portal's live view (null: nobody). */
export type ControlSpan = { t: number; name: string | null };
/** A recording as the inspector reads it: the service's events, and who had control when (portal sessions). */
export type InspectedRecording = Recording & { keyName: string; control: ControlSpan[] };

/** `browsers`: the team browsers the portal holds now, whose recordings are live (their names are not in the history yet). */
type Deps = { vault: Vault; serviceUrl: string; browsers?: Pick<BrowserDirectory, 'listForTeam'> };

const BROWSER_ID = /^br_[A-Za-z0-9_-]{32}$/;

/**
 * The team's session recordings, read from the service with the team's own keys (decision 0070):
 * a member sees every recording of every key of the team, and nothing of another team's (their
 * keys are not this team's, so the service does not give them).
 */
export async function teamRecordings(d: Deps, actor: Actor, teamId: string): Promise<TeamRecording[]> {
  const perKey = await eachTeamKey(d.vault, actor, teamId, async (key, token) =>
    ((await listKeyBrowsers(d.serviceUrl, token)) ?? []).filter((b) => b.recorded).map((b) => ({ ...b, keyName: key.name })),
  );
  const recordings = perKey.flat();
  const names = await portalNames(
    d,
    teamId,
    recordings.map((r) => r.id),
  );
  return recordings.map((r) => ({ ...r, name: names.get(r.id) ?? null })).sort((a, b) => b.startedAt - a.startedAt);
}

/**
 * The names people gave the team's browsers that the portal started, by the service's browser id:
 * of those that ended from the team's history (decision 0112), of those still running from the
 * browsers the portal holds. A script's browser, watched here or not, has none.
 */
async function portalNames(d: Deps, teamId: string, browserIds: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (browserIds.length === 0) return names;
  for (const r of await d.vault.data.instancesByBrowserId(teamId, browserIds)) if (r.browserId) names.set(r.browserId, r.name);
  const held = (await d.browsers?.listForTeam(teamId).catch(() => [])) ?? [];
  for (const row of held) if (!row.attached) names.set(row.browserId, row.name);
  return names;
}

/** An event found in one of the team's recordings: which session, with which key, when. */
export type FoundEvent = { browser: string; browserStartedAt: number; keyName: string; at: number; event: RecordingEvent };

/**
 * Search every recording of the team's keys for events ("which runs hit a 500 from this host this
 * week"): the query is checked here, then asked of the service with each key; the newest matches
 * of all of them first, at most the query's limit.
 */
export async function searchTeamRecordings(
  d: Deps,
  actor: Actor,
  teamId: string,
  params: URLSearchParams,
): Promise<{ query: EventQuery; matches: FoundEvent[]; sessions: number; truncated: boolean }> {
  await requireRole(d.vault.data, actor, teamId, 'member');
  const query = parseEventQuery(params);
  // The window is fixed here, so every key is asked about the same one.
  const asked = new URLSearchParams(params);
  asked.set('since', new Date(query.since).toISOString());
  asked.set('until', new Date(query.until).toISOString());
  const perKey = await eachTeamKey(d.vault, actor, teamId, async (key, token) => {
    const result = await searchKeyRecordings(d.serviceUrl, token, asked);
    return result && { ...result, matches: result.matches.map((m) => ({ ...m, keyName: key.name })) };
  });
  const all = perKey.filter((r) => r !== null);
  const matches = all.flatMap((r) => r.matches).sort((a, b) => b.at - a.at);
  return {
    query,
    matches: matches.slice(0, query.limit),
    sessions: all.reduce((n, r) => n + r.sessions, 0),
    truncated: matches.length > query.limit || all.some((r) => r.truncated),
  };
}

/**
 * The recording's events after `after`, and what the inspector needs to show it: for a browser
 * the portal held, who had control when (the portal's own record: the service never sees people).
 */
export async function teamRecording(d: Deps, actor: Actor, teamId: string, id: string, after: unknown): Promise<InspectedRecording> {
  // A stranger hears "not found" before anything about what they sent.
  await requireRole(d.vault.data, actor, teamId, 'member');
  const since = typeof after === 'string' && /^\d{1,15}$/.test(after) ? Number(after) : after === undefined || after === null ? 0 : NaN;
  if (!Number.isFinite(since)) throw new BadRequest('after must be a whole number');
  const recording = await withRecordingKey(d, actor, teamId, id, async (token, keyName) => {
    const found = await readRecording(d.serviceUrl, token, id, since);
    return found && { ...found, keyName };
  });
  const startedAt = Date.parse(recording.startedAt);
  const control = (await d.vault.data.controlHistory(teamId, id)).map((c) => ({ t: Math.max(0, c.at - startedAt), name: c.name }));
  return { ...recording, control };
}

/** One frame of the screen (the `offset` and `length` a frame event names), as the service's response to pass on. */
export async function teamRecordingScreen(d: Deps, actor: Actor, teamId: string, id: string, query: URLSearchParams): Promise<Response> {
  await requireRole(d.vault.data, actor, teamId, 'member');
  if (!BROWSER_ID.test(id)) throw new NotFound('no such recording');
  const [offset, length] = [query.get('offset') ?? '', query.get('length') ?? ''];
  if (!/^\d{1,15}$/.test(offset) || !/^[1-9]\d{0,8}$/.test(length)) throw new BadRequest('ask for one frame by its offset and length');
  const range = `bytes=${offset}-${Number(offset) + Number(length) - 1}`;
  return withRecordingKey(d, actor, teamId, id, async (token) => {
    const res = await readScreen(d.serviceUrl, token, id, range);
    return res.status === 404 ? null : res;
  });
}

/**
 * Which of a team's keys holds a recording, once found: the inspector fetches a frame or two a
 * second while it plays, and only the first of those needs to ask with every key. Bounded; a key
 * that no longer has it (revoked, recording expired) is forgotten and all are asked again.
 */
const owners = new Map<string, string>();
const MAX_OWNERS = 1000;

/** Run `use` with the team key whose recording `id` is; NotFound when none of the team's keys has it. */
async function withRecordingKey<T>(
  d: Deps,
  actor: Actor,
  teamId: string,
  id: string,
  use: (token: string, keyName: string) => Promise<T | null>,
): Promise<T> {
  if (!BROWSER_ID.test(id)) throw new NotFound('no such recording');
  const slot = `${teamId} ${id}`;
  const known = owners.get(slot);
  const found = await eachTeamKey(d.vault, actor, teamId, async (key, token) => {
    if (known && key.id !== known) return null;
    const result = await use(token, key.name);
    return result === null ? null : { keyId: key.id, result };
  });
  const hit = found.find((r) => r !== null);
  if (!hit) {
    if (known) {
      owners.delete(slot);
      return withRecordingKey(d, actor, teamId, id, use);
    }
    throw new NotFound('no such recording');
  }
  if (owners.size >= MAX_OWNERS) owners.delete(owners.keys().next().value!);
  owners.set(slot, hit.keyId);
  return hit.result;
}
