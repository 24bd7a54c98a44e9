import { fetchPage, pdf, screenshot, type FetchRequest, type FetchResponse, type PdfRequest, type ScreenshotRequest } from './actions.ts';
import { Browsers, Profiles, Recordings } from './browsers.ts';
import { PeriscopeError } from './errors.ts';
import { Http, type CallOptions } from './http.ts';
import { search, type SearchRequest, type SearchResponse } from './search.ts';

export const VERSION = '0.1.0';

/** `GET /healthz`'s answer; fields a newer service adds are kept. */
export type Health = {
  status: string;
  browsers: { live: number; warm: number; capacity: number; queued?: number; [field: string]: unknown };
  search: { pages?: number; [field: string]: unknown };
  [field: string]: unknown;
};

export type PeriscopeOptions = {
  /** The API key (`psk_…`); default `PERISCOPE_API_KEY`. */
  apiKey?: string;
  /** The service's address, e.g. `https://browser.example.com`; default `PERISCOPE_URL`, else `http://127.0.0.1:3100`. */
  baseUrl?: string;
  /** Time limit of each call's attempt, in milliseconds (default 60,000). */
  timeoutMs?: number;
  /** Retries of a 429, 502 or 503 answer, each after the `Retry-After` it gives (default 2; 0 turns them off). */
  maxRetries?: number;
  /** A retry that would wait longer than this is not made; the refusal is thrown at once (default 60,000). */
  maxRetryDelayMs?: number;
};

/** The default service address: `npm start`'s own. */
const DEFAULT_URL = 'http://127.0.0.1:3100';

/**
 * A client of one Periscope service for one API key.
 *
 * ```ts
 * const periscope = new Periscope(); // PERISCOPE_API_KEY, PERISCOPE_URL
 * const browser = await periscope.browsers.start();
 * const pw = await browser.connectPlaywright(chromium);
 * ```
 */
export class Periscope {
  readonly browsers: Browsers;
  readonly recordings: Recordings;
  /** The key's saved browser profiles (list, delete). */
  readonly profiles: Profiles;
  readonly #http: Http;

  constructor(options: PeriscopeOptions = {}) {
    const env: Record<string, string | undefined> = typeof process === 'undefined' ? {} : process.env;
    const apiKey = options.apiKey ?? env.PERISCOPE_API_KEY;
    if (!apiKey) throw new PeriscopeError('No API key: pass { apiKey } or set PERISCOPE_API_KEY');
    const base = options.baseUrl ?? env.PERISCOPE_URL ?? DEFAULT_URL;
    let baseUrl: URL;
    try {
      baseUrl = new URL(base);
    } catch {
      throw new PeriscopeError(`The service address ${JSON.stringify(base)} is not a URL`);
    }
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
      throw new PeriscopeError(`The service address must be http or https, not ${baseUrl.protocol}`);
    }
    this.#http = new Http({
      baseUrl,
      apiKey,
      timeoutMs: positive(options.timeoutMs, 60_000, 'timeoutMs'),
      maxRetries: Math.floor(positive(options.maxRetries, 2, 'maxRetries', true)),
      maxRetryDelayMs: positive(options.maxRetryDelayMs, 60_000, 'maxRetryDelayMs', true),
      userAgent: `periscope-client-typescript/${VERSION}`,
    });
    this.browsers = new Browsers(this.#http);
    this.recordings = new Recordings(this.#http);
    this.profiles = new Profiles(this.#http);
  }

  /** Search the service's index: ranked, de-duplicated results (docs/api.md, "Search"). */
  search(request: SearchRequest, call: CallOptions = {}): Promise<SearchResponse> {
    return search(this.#http, request, call);
  }

  /**
   * `GET /healthz`: whether the service can serve, and its browsers (live, warm, capacity, queued)
   * and index (docs/api.md, "Health"). A draining node answers 503: an UnavailableError.
   */
  health(call: CallOptions = {}): Promise<Health> {
    return this.#http.json<Health>({ method: 'GET', path: '/healthz' }, { maxRetries: 0, ...call });
  }

  /** A page as a real browser rendered it: its main content (Markdown by default), title and links. */
  fetch(request: FetchRequest, call: CallOptions = {}): Promise<FetchResponse> {
    return fetchPage(this.#http, request, call);
  }

  /** A page's screenshot: PNG (default) or JPEG bytes. */
  screenshot(request: ScreenshotRequest, call: CallOptions = {}): Promise<Uint8Array> {
    return screenshot(this.#http, request, call);
  }

  /** A page printed as PDF bytes. */
  pdf(request: PdfRequest, call: CallOptions = {}): Promise<Uint8Array> {
    return pdf(this.#http, request, call);
  }
}

function positive(value: number | undefined, fallback: number, name: string, zeroAllowed = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0)) {
    throw new PeriscopeError(`${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, not ${value}`);
  }
  return value;
}
