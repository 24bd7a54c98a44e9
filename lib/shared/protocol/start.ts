import type { FieldIssue } from '../errors.ts';

/**
 * The /start socket's protocol. The service sends exactly one text message, the browser id, and
 * later closes the socket with a code from this table when the instance ends for a reason other
 * than the client closing it. Messages from the client are read and ignored.
 * Documented for users in docs/api.md.
 */
export const BROWSER_ID_PREFIX = 'br_';
/** `br_` and 32 base64url characters: 192 random bits. */
export const BROWSER_ID_RE = /^br_[A-Za-z0-9_-]{32}$/;

/** Largest client message accepted (and ignored) before the socket is closed with 1009. */
export const START_MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;

export const START_CLOSE = {
  /** The service is shutting down; every instance is ended. */
  shutdown: { code: 1001, reason: 'service shutting down' },
  /** Something in the service failed while holding the instance. */
  internal: { code: 1011, reason: 'internal error' },
  /** The API key was revoked while the instance was live. */
  keyRevoked: { code: 4401, reason: 'API key revoked' },
  /** The instance reached the operator's lifetime limit (BROWSER_MAX_LIFETIME_SECONDS). */
  lifetime: { code: 4408, reason: 'instance lifetime limit reached' },
  /** Someone holding the key stopped it with DELETE /v0/browsers/{id} (the portal's Stop, for one). */
  stopped: { code: 4410, reason: 'stopped through the API' },
  /** The instance's files (profile, downloads, uploads) passed the operator's limit (BROWSER_DISK_LIMIT_MB). */
  diskLimit: { code: 4413, reason: 'instance disk limit reached' },
  /**
   * The service node running the instance was lost (it stopped answering its heartbeat), and this
   * socket reached it through another node; sent by that other node. The instance is gone with it.
   */
  nodeLost: { code: 4502, reason: 'the service node running this browser was lost' },
  /** Chromium exited or crashed on its own. */
  crashed: { code: 4500, reason: 'browser process exited' },
} as const;

export type EndReason = keyof typeof START_CLOSE | 'client-closed' | 'client-unresponsive';

export const isBrowserId = (text: string): boolean => BROWSER_ID_RE.test(text);

/** What a client may ask of its browser in `/start`'s query (docs/api.md, section 1). */
export type StartOptions = {
  /** `timeout=SECONDS`: this browser's lifetime, at most the operator's BROWSER_MAX_LIFETIME_SECONDS. */
  lifetimeSeconds?: number;
  /** `queue=SECONDS`: wait up to this long for room instead of being refused at once (503 or 429). */
  queueSeconds?: number;
  /** `profile=NAME[&persist=1]`: start from the key's saved profile, and save the state back into it when `persist`. */
  profile?: { name: string; persist: boolean };
};

/** A profile's name: 1 to 64 of `A-Za-z0-9._-` (docs/api.md, "Saved profiles"). */
export const PROFILE_NAME_RE = /^[A-Za-z0-9._-]{1,64}$/;

/** The longest a client may wait in the queue for room. */
export const MAX_QUEUE_SECONDS = 300;

/**
 * Read `/start`'s query: every option it names checked (a FieldIssue per bad one, named after the
 * parameter), every other parameter ignored, so that clients may send options a later version knows.
 */
export function checkStartOptions(
  query: URLSearchParams,
  maxLifetimeSeconds: number,
): { ok: true; options: StartOptions } | { ok: false; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  /** A parameter given at most once, a whole number of seconds from `min` to `max`; undefined when absent. */
  const seconds = (name: string, min: number, max: number, what: string): number | undefined => {
    const given = query.getAll(name);
    if (given.length > 1) return void issues.push({ field: name, message: 'must be given once' });
    if (given.length === 0) return undefined;
    const text = given[0] as string;
    const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    if (n >= min && n <= max) return n;
    issues.push({
      field: name,
      message: `must be a whole number of seconds from ${min} to ${max} (${what}), got ${JSON.stringify(text.slice(0, 40))}`,
    });
    return undefined;
  };
  const lifetimeSeconds = seconds('timeout', 1, maxLifetimeSeconds, "the service's longest lifetime");
  const queueSeconds = seconds('queue', 0, MAX_QUEUE_SECONDS, 'the longest wait for room');
  const profile = checkProfileOption(query, issues);
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    options: {
      ...(lifetimeSeconds !== undefined ? { lifetimeSeconds } : {}),
      ...(queueSeconds ? { queueSeconds } : {}),
      ...(profile ? { profile } : {}),
    },
  };
}

/** `profile=NAME` and `persist=1|0`, each at most once; `persist` only with a profile. */
function checkProfileOption(query: URLSearchParams, issues: FieldIssue[]): StartOptions['profile'] {
  const names = query.getAll('profile');
  const persists = query.getAll('persist');
  if (names.length > 1) issues.push({ field: 'profile', message: 'must be given once' });
  if (persists.length > 1) issues.push({ field: 'persist', message: 'must be given once' });
  const name = names[0];
  const persist = persists[0];
  if (name !== undefined && !PROFILE_NAME_RE.test(name))
    issues.push({ field: 'profile', message: `must be 1 to 64 of A-Za-z0-9._-, got ${JSON.stringify(name.slice(0, 70))}` });
  if (persist !== undefined && persist !== '1' && persist !== '0')
    issues.push({ field: 'persist', message: `must be 1 or 0, got ${JSON.stringify(persist.slice(0, 40))}` });
  else if (persist === '1' && name === undefined) issues.push({ field: 'persist', message: 'needs a profile=NAME to save into' });
  if (name === undefined || names.length > 1 || !PROFILE_NAME_RE.test(name)) return undefined;
  return { name, persist: persist === '1' };
}
