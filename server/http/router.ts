import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { MethodNotAllowed, NotFound } from '../../lib/errors.ts';
import { sendError } from './respond.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

/** Exact-path routing with JSON 404 and 405 answers. */
export class Router {
  readonly #routes = new Map<string, Map<string, Handler>>();
  readonly #log: Logger;
  readonly #onDone: (route: string, status: number) => void;

  constructor(log: Logger, onDone: (route: string, status: number) => void = () => {}) {
    this.#log = log;
    this.#onDone = onDone;
  }

  on(method: string, paths: string | readonly string[], handler: Handler): this {
    for (const path of typeof paths === 'string' ? [paths] : paths) {
      const methods = this.#routes.get(path) ?? new Map<string, Handler>();
      methods.set(method, handler);
      if (method === 'GET') methods.set('HEAD', handler);
      this.#routes.set(path, methods);
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
    const methods = this.#routes.get(url.pathname);
    const route = methods ? url.pathname : 'unmatched';
    try {
      if (!methods) throw new NotFound(`no such endpoint: ${req.method} ${url.pathname}`);
      const handler = methods.get(req.method ?? '');
      if (!handler) throw new MethodNotAllowed([...methods.keys()]);
      await handler(req, res, url);
    } catch (err) {
      const status = sendError(res, err);
      if (status >= 500) this.#log.error({ err, path: url.pathname }, 'request failed');
    } finally {
      this.#onDone(route, res.statusCode);
    }
  }
}
