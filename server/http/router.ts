import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BadRequest, MethodNotAllowed, NotFound } from '#shared/errors.ts';
import { sendError } from './respond.ts';

/** Values of a pattern's `:name` segments, percent-decoded. */
export type RouteParams = Readonly<Record<string, string>>;

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, params: RouteParams) => Promise<void> | void;

type Pattern = { path: string; segments: readonly string[]; methods: Map<string, Handler> };

/**
 * Routing with JSON 404 and 405 answers. A path is exact unless one of its segments is `:name`,
 * which matches one whole, non-empty segment of the request path and hands it to the handler
 * percent-decoded (`/v0/browser/uploads/:name`). Exact paths are tried first, against the URL's
 * normalised path; patterns are matched against the path exactly as the client sent it, so that
 * `..`, `.` or `%2e%2e` in a parameter reach the handler (and its validation) instead of being
 * resolved away into another endpoint.
 */
export class Router {
  readonly #routes = new Map<string, Map<string, Handler>>();
  readonly #patterns: Pattern[] = [];
  readonly #log: Logger;
  readonly #onDone: (route: string, status: number) => void;

  constructor(log: Logger, onDone: (route: string, status: number) => void = () => {}) {
    this.#log = log;
    this.#onDone = onDone;
  }

  on(method: string, paths: string | readonly string[], handler: Handler): this {
    for (const path of typeof paths === 'string' ? [paths] : paths) {
      const methods = path.split('/').some((s) => s.startsWith(':')) ? this.#pattern(path) : this.#exact(path);
      methods.set(method, handler);
      if (method === 'GET') methods.set('HEAD', handler);
    }
    return this;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      url = new URL('http://localhost/');
    }
    let route = 'unmatched';
    try {
      const exact = this.#routes.get(url.pathname);
      const matched = exact
        ? { path: url.pathname, methods: exact, values: [] as string[], names: [] as string[] }
        : this.#match(rawPath(req.url, url));
      if (!matched) throw new NotFound(`no such endpoint: ${req.method} ${url.pathname}`);
      route = matched.path;
      const handler = matched.methods.get(req.method ?? '');
      if (!handler) throw new MethodNotAllowed([...matched.methods.keys()]);
      const params: Record<string, string> = {};
      matched.names.forEach((name, i) => (params[name] = decodeSegment(matched.values[i] as string)));
      await handler(req, res, url, params);
    } catch (err) {
      const status = sendError(res, err);
      if (status >= 500) this.#log.error({ err, path: url.pathname }, 'request failed');
    } finally {
      this.#onDone(route, res.statusCode);
    }
  }

  #exact(path: string): Map<string, Handler> {
    const methods = this.#routes.get(path) ?? new Map<string, Handler>();
    this.#routes.set(path, methods);
    return methods;
  }

  #pattern(path: string): Map<string, Handler> {
    const existing = this.#patterns.find((p) => p.path === path);
    if (existing) return existing.methods;
    const segments = path.split('/');
    if (segments.some((s) => s.startsWith(':') && !/^:[A-Za-z_]\w*$/.test(s))) throw new Error(`bad route pattern ${path}`);
    const pattern = { path, segments, methods: new Map<string, Handler>() };
    this.#patterns.push(pattern);
    return pattern.methods;
  }

  /** The first pattern the raw path matches (the label for metrics is the pattern, not the path). */
  #match(raw: string): { path: string; methods: Map<string, Handler>; names: string[]; values: string[] } | null {
    const parts = raw.split('/');
    for (const p of this.#patterns) {
      if (p.segments.length !== parts.length) continue;
      const names: string[] = [];
      const values: string[] = [];
      const ok = p.segments.every((s, i) => {
        const part = parts[i] as string;
        if (!s.startsWith(':')) return s === part;
        names.push(s.slice(1));
        values.push(part);
        return part !== '';
      });
      if (ok) return { path: p.path, methods: p.methods, names, values };
    }
    return null;
  }
}

/** The request's path as sent: origin-form up to `?` or `#`; anything else falls back to the parsed path. */
function rawPath(requestUrl: string | undefined, url: URL): string {
  if (!requestUrl?.startsWith('/')) return url.pathname;
  const end = requestUrl.search(/[?#]/);
  return end === -1 ? requestUrl : requestUrl.slice(0, end);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest('the path holds malformed percent-encoding (or bytes that are not UTF-8)');
  }
}
