import WebSocket from 'ws';
import { DomainError, type ErrorCode } from '#shared/errors.ts';
import { START_CLOSE, isBrowserId } from '#shared/protocol/start.ts';

export type StartEnd = { code: number; reason: string };

/** A browser instance held through the service's public interface (docs/api.md, "Cloud browser"), as any client would. */
export type HeldBrowser = {
  id: string;
  /** Headers for /json/version and the DevTools socket. */
  headers: Record<string, string>;
  debuggerUrl: string;
  /** Settles when the /start socket closes, with the code and reason the service gave. */
  ended: Promise<StartEnd>;
  /** Close /start, which ends the instance. */
  release(): void;
};

/** The code a refusal of /start gets, from the status the service answered (docs/api.md). */
function codeOf(serviceStatus: number): ErrorCode {
  switch (serviceStatus) {
    case 401:
      return 'key_refused';
    case 429:
      return 'rate_limited';
    case 503:
      return 'unavailable';
    case 504:
      return 'timeout';
    default:
      return 'upstream_failed';
  }
}

/** The service did not give a browser; `code` says why, the message is the service's own words. */
export class StartRefused extends DomainError {
  readonly serviceStatus: number;
  constructor(serviceStatus: number, message: string) {
    super(codeOf(serviceStatus), message);
    this.serviceStatus = serviceStatus;
  }
}

/** What the portal asks of a browser at /start (docs/api.md, section 1). */
export type HoldOptions = {
  /** `timeout=`: the browser's lifetime in seconds; absent, the service's longest. */
  lifetimeSeconds?: number;
  /** `queue=`: wait up to this many seconds for room instead of being refused at once. */
  queueSeconds?: number;
  /** `X-Browser-Proxy`: the upstream proxy the browser's traffic leaves through, credentials included. */
  proxyUrl?: string;
  /** `profile=`: the key's saved profile the browser starts from (docs/api.md, section 7). */
  profile?: string;
  /** `persist=1` (with `profile`): save the browser's state back into the profile when it ends. */
  persist?: boolean;
  /** Give up: the pending /start is closed, and the service starts nothing for it. */
  signal?: AbortSignal;
  /** How long the service has to answer beyond the queue's wait. */
  timeoutMs?: number;
};

/** The address of /start with the options in its query. */
export function startAddress(
  serviceUrl: string,
  opts: Pick<HoldOptions, 'lifetimeSeconds' | 'queueSeconds' | 'profile' | 'persist'>,
): string {
  const url = new URL(`${serviceUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/start`);
  if (opts.lifetimeSeconds !== undefined) url.searchParams.set('timeout', String(opts.lifetimeSeconds));
  if (opts.queueSeconds !== undefined) url.searchParams.set('queue', String(opts.queueSeconds));
  if (opts.profile !== undefined) url.searchParams.set('profile', opts.profile);
  if (opts.profile !== undefined && opts.persist) url.searchParams.set('persist', '1');
  return url.href;
}

/** Thrown when the caller gave up on a start (HoldOptions.signal) before the browser was there. */
export class StartCancelled extends DomainError {
  constructor() {
    super('conflict', 'the start was cancelled before the browser was ready');
  }
}

/** Open /start, read the id, and ask /json/version for the debugger address. */
export async function holdBrowser(serviceUrl: string, apiKey: string, opts: HoldOptions = {}): Promise<HeldBrowser> {
  const timeoutMs = (opts.timeoutMs ?? 30_000) + (opts.queueSeconds ?? 0) * 1000;
  if (opts.signal?.aborted) throw new StartCancelled();
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (opts.proxyUrl) headers['x-browser-proxy'] = opts.proxyUrl;
  const socket = new WebSocket(startAddress(serviceUrl, opts), { headers, handshakeTimeout: timeoutMs });
  const ended = new Promise<StartEnd>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  socket.on('error', () => {});
  let cancelled = false;
  const cancel = () => {
    cancelled = true;
    socket.terminate();
  };
  opts.signal?.addEventListener('abort', cancel, { once: true });
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new StartRefused(504, 'the service did not answer /start in time'));
    }, timeoutMs);
    socket.once('message', (data, isBinary) => {
      clearTimeout(timer);
      const text = data.toString();
      if (isBinary || !isBrowserId(text)) {
        socket.terminate();
        reject(new StartRefused(502, 'the service sent something other than a browser id'));
      } else resolve(text);
    });
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => {
        let message = `the service refused /start with ${res.statusCode}`;
        try {
          message = (JSON.parse(body) as { error?: string }).error ?? message;
        } catch {
          // not JSON
        }
        reject(new StartRefused(res.statusCode ?? 502, message));
      });
    });
    socket.once('close', () => {
      clearTimeout(timer);
      reject(cancelled ? new StartCancelled() : new StartRefused(502, 'the service closed /start before sending an id'));
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(cancelled ? new StartCancelled() : new StartRefused(502, `cannot reach the service: ${err.message}`));
    });
  }).finally(() => opts.signal?.removeEventListener('abort', cancel));
  // The proxy's address and credentials stay with /start: the later calls name the browser only.
  const browserHeaders = { authorization: `Bearer ${apiKey}`, 'x-browser-id': id };
  try {
    const res = await fetch(`${serviceUrl}/json/version`, {
      headers: browserHeaders,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
    if (!res.ok) throw new StartRefused(res.status, `the service answered /json/version with ${res.status}`);
    const { webSocketDebuggerUrl } = (await res.json()) as { webSocketDebuggerUrl?: unknown };
    if (typeof webSocketDebuggerUrl !== 'string') throw new StartRefused(502, 'no webSocketDebuggerUrl in /json/version');
    return { id, headers: browserHeaders, debuggerUrl: webSocketDebuggerUrl, ended, release: () => socket.close(1000, 'released') };
  } catch (err) {
    socket.close();
    throw err;
  }
}

/** How an attachment ends (never on the wire): the portal let go, or lost the browser's DevTools connection. */
export const ATTACHMENT_ENDED = 4000;

/**
 * A browser someone else started with the key (a script), to watch from the portal: its DevTools
 * address through /json/version, like any client's second connection (docs/api.md). The portal
 * holds no /start socket for it, so `release` only lets go of it: the browser goes on for its
 * owner. Null when the service has no such live browser for the key.
 */
export async function attachBrowser(serviceUrl: string, apiKey: string, id: string, timeoutMs = 10_000): Promise<HeldBrowser | null> {
  const headers = { authorization: `Bearer ${apiKey}`, 'x-browser-id': id };
  let res: Response;
  try {
    res = await fetch(`${serviceUrl}/json/version`, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new StartRefused(502, `cannot reach the service: ${(err as Error).message}`);
  }
  if (res.status === 404 || res.status === 401) return null;
  if (!res.ok) throw new StartRefused(res.status, `the service answered /json/version with ${res.status}`);
  const { webSocketDebuggerUrl } = (await res.json().catch(() => ({}))) as { webSocketDebuggerUrl?: unknown };
  if (typeof webSocketDebuggerUrl !== 'string') throw new StartRefused(502, 'no webSocketDebuggerUrl in /json/version');
  let release!: () => void;
  const ended = new Promise<StartEnd>((resolve) => {
    release = () => resolve({ code: ATTACHMENT_ENDED, reason: 'the portal stopped watching it; it goes on for whoever started it' });
  });
  return { id, headers, debuggerUrl: webSocketDebuggerUrl, ended, release };
}

/** A human reading of why the service ended an instance. */
export function describeEnd(end: StartEnd): { reason: string; message: string } {
  if (end.code === ATTACHMENT_ENDED) return { reason: 'detached', message: end.reason };
  for (const [name, entry] of Object.entries(START_CLOSE)) {
    if (entry.code === end.code) return { reason: name, message: entry.reason };
  }
  if (end.code === 1000 || end.code === 1005) return { reason: 'stopped', message: 'stopped' };
  return { reason: 'service-gone', message: `the connection to the service was lost (${end.code})` };
}
