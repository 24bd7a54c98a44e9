import type { CallOptions, Http } from './http.ts';

/** What every page action takes (docs/api.md, "Page actions"). */
export type PageActionRequest = {
  /** An absolute http(s) address. */
  url: string;
  /** What to wait for: `load` (default), `domcontentloaded` or `networkidle`. */
  waitUntil?: 'load' | 'domcontentloaded' | 'networkidle';
  /** The whole call on the service, 1 to 60,000 ms (default 30,000). */
  timeoutMs?: number;
  /** The call's browser's own upstream proxy, `http://user:pass@host:port` (sent as `X-Browser-Proxy`, not in the body). */
  proxy?: string;
};

export type FetchRequest = PageActionRequest & { format?: 'markdown' | 'html' | 'text' };

export type FetchResponse = {
  url: string;
  /** Where the page ended up after redirects. */
  finalUrl: string;
  /** The HTTP status of the page's own document (a 404 page is a page). */
  status: number;
  title: string;
  /** The page's main content in the format asked for. */
  content: string;
  /** Every http(s) link of the rendered page, absolute. */
  links: string[];
};

export type ScreenshotRequest = PageActionRequest & {
  format?: 'png' | 'jpeg';
  /** 1 to 100, jpeg only. */
  quality?: number;
  fullPage?: boolean;
  viewport?: { width: number; height: number };
};

export type PdfRequest = PageActionRequest & {
  format?: 'letter' | 'legal' | 'tabloid' | 'a3' | 'a4' | 'a5';
  landscape?: boolean;
  printBackground?: boolean;
  scale?: number;
  /** In inches. */
  margin?: { top?: number; right?: number; bottom?: number; left?: number };
  /** e.g. `"1-5, 8"`. */
  pageRanges?: string;
};

/** The service's default `timeoutMs` of a page action, and the room its answer needs on top. */
const SERVICE_DEFAULT_MS = 30_000;
const ANSWER_ROOM_MS = 10_000;

/** One page action: the client waits at least as long as the service may work on it. */
function post(http: Http, path: string, request: PageActionRequest, call: CallOptions) {
  const timeoutMs = Math.max(call.timeoutMs ?? http.timeoutMs, (request.timeoutMs ?? SERVICE_DEFAULT_MS) + ANSWER_ROOM_MS);
  const { proxy, ...body } = request;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(proxy ? { 'X-Browser-Proxy': proxy } : {}) };
  return {
    req: { method: 'POST', path, headers, body: JSON.stringify(body) },
    call: { ...call, timeoutMs },
  };
}

export function fetchPage(http: Http, request: FetchRequest, call: CallOptions = {}): Promise<FetchResponse> {
  const { req, call: c } = post(http, '/v0/fetch', request, call);
  return http.json<FetchResponse>(req, c);
}

export function screenshot(http: Http, request: ScreenshotRequest, call: CallOptions = {}): Promise<Uint8Array> {
  const { req, call: c } = post(http, '/v0/screenshot', request, call);
  return http.bytes(req, c);
}

export function pdf(http: Http, request: PdfRequest, call: CallOptions = {}): Promise<Uint8Array> {
  const { req, call: c } = post(http, '/v0/pdf', request, call);
  return http.bytes(req, c);
}
