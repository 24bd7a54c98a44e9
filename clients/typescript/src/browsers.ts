import { RemoteBrowser, type StartOptions } from './browser.ts';
import type { CallOptions, Http } from './http.ts';

/** One of the key's browsers, as `GET /v0/browsers` lists it (docs/api.md, section 5). */
export type BrowserSummary = {
  id: string;
  status: 'live' | 'ending' | 'ended';
  startedAt: string;
  endedAt: string | null;
  /** Why it ended (`client-closed`, `stopped`, `lifetime`, …); null while it lives. */
  endReason: string | null;
  /** The tab that changed last, or null when it has no tab. */
  page: { url: string; title: string } | null;
  tabs: number;
  /** Whether it was recorded (its recording can be read). */
  recorded?: boolean;
};

/** An event of a recording (docs/api.md, section 6); `type` says which other fields it has. */
export type RecordingEvent = { seq: number; t: number; type: string; [field: string]: unknown };

export type Recording = {
  id: string;
  startedAt: string;
  endedAt: string | null;
  /** True while the browser lives: poll with `after` to follow it. */
  live: boolean;
  screenBytes: number;
  events: RecordingEvent[];
};

/** The key's browsers: start one, list them, stop one, read their recordings. */
export class Browsers {
  readonly #http: Http;

  constructor(http: Http) {
    this.#http = http;
  }

  /** Start a browser and hold it; see RemoteBrowser. */
  start(options: StartOptions = {}): Promise<RemoteBrowser> {
    return RemoteBrowser.start(this.#http, options);
  }

  /** Start a browser, run `work` with it, and stop it whatever `work` does; resolves to what `work` returns. */
  async with<T>(work: (browser: RemoteBrowser) => Promise<T>, options: StartOptions = {}): Promise<T> {
    const browser = await this.start(options);
    try {
      return await work(browser);
    } finally {
      await browser.stop();
    }
  }

  /** The key's browsers, newest first: every live one and those that ended lately. */
  async list(options: CallOptions & { status?: 'live' | 'ended' } = {}): Promise<BrowserSummary[]> {
    const { status, ...call } = options;
    const answer = await this.#http.json<{ browsers: BrowserSummary[] }>({ method: 'GET', path: '/v0/browsers', query: { status } }, call);
    return answer.browsers;
  }

  /** End one of the key's live browsers at once (its holder sees `stopped`); a NotFoundError when none lives with that id. */
  stop(id: string, call: CallOptions = {}): Promise<void> {
    return this.#http.empty({ method: 'DELETE', path: `/v0/browsers/${encodeURIComponent(id)}` }, call);
  }

  /** A recorded browser's events (those after `after` when given). */
  recording(id: string, options: CallOptions & { after?: number } = {}): Promise<Recording> {
    const { after, ...call } = options;
    return this.#http.json<Recording>({ method: 'GET', path: `/v0/browsers/${encodeURIComponent(id)}/recording`, query: { after } }, call);
  }

  /** One screen frame of a recording: the JPEG at a `frame` event's `offset` and `length`. */
  recordingFrame(id: string, frame: { offset: number; length: number }, call: CallOptions = {}): Promise<Uint8Array> {
    return this.#http.bytes(
      {
        method: 'GET',
        path: `/v0/browsers/${encodeURIComponent(id)}/recording/screen`,
        headers: { Range: `bytes=${frame.offset}-${frame.offset + frame.length - 1}` },
      },
      call,
    );
  }
}

/** `GET /v0/recordings/events`'s filters (docs/api.md, section 6). */
export type EventFilters = {
  q?: string;
  type?: Array<'navigation' | 'request' | 'console' | 'error' | 'dialog'>;
  /** `404`, `5xx` or `failed`. */
  status?: string;
  host?: string;
  since?: Date | string;
  until?: Date | string;
  limit?: number;
};

export type EventMatch = { browser: string; browserStartedAt: string; at: string; event: RecordingEvent };

/** Every recording of the key, searched for events. */
export class Recordings {
  readonly #http: Http;

  constructor(http: Http) {
    this.#http = http;
  }

  /** Events matching the filters, newest first. */
  events(filters: EventFilters = {}, call: CallOptions = {}): Promise<{ matches: EventMatch[]; sessions: number; truncated: boolean }> {
    const when = (d: Date | string | undefined) => (d instanceof Date ? d.toISOString() : d);
    const query = {
      q: filters.q,
      type: filters.type?.join(','),
      status: filters.status,
      host: filters.host,
      since: when(filters.since),
      until: when(filters.until),
      limit: filters.limit,
    };
    return this.#http.json({ method: 'GET', path: '/v0/recordings/events', query }, call);
  }
}

/** A saved browser profile, as `GET /v0/profiles` lists it (docs/api.md, section 7). */
export type ProfileSummary = {
  name: string;
  /** Its stored (sealed) size. */
  bytes: number;
  /** When its last save ended. */
  updatedAt: string;
  /** Whether a browser started with `persist` holds it now. */
  inUse: boolean;
};

/** The key's saved profiles: start a browser from one with `browsers.start({ profile, persist })`. */
export class Profiles {
  readonly #http: Http;

  constructor(http: Http) {
    this.#http = http;
  }

  /** The key's saved profiles, by name. */
  async list(call: CallOptions = {}): Promise<ProfileSummary[]> {
    return (await this.#http.json<{ profiles: ProfileSummary[] }>({ method: 'GET', path: '/v0/profiles' }, call)).profiles;
  }

  /** Delete one: a NotFoundError when the key has none of that name, a ConflictError while a persisting browser holds it. */
  delete(name: string, call: CallOptions = {}): Promise<void> {
    return this.#http.empty({ method: 'DELETE', path: `/v0/profiles/${encodeURIComponent(name)}` }, call);
  }
}
