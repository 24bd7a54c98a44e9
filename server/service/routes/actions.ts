import type { IncomingMessage, ServerResponse } from 'node:http';
import { TooManyRequests, ValidationFailed } from '#shared/errors.ts';
import { authenticate } from '#service/keys/auth.ts';
import { rateLimitHeaders } from '#service/ratelimit/limiter.ts';
import { parseActionBody, type PageAction } from '#shared/protocol/actions.ts';
import { readBody } from '../../http/body.ts';
import { sendError, sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';

/** A page action's body is a few fields: 16 KiB is room for the longest address and every option. */
const MAX_BODY_BYTES = 16 * 1024;

const isJson = (req: IncomingMessage) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(req.headers['content-type'] ?? '');

/**
 * POST /v0/fetch, /v0/screenshot and /v0/pdf (docs/api.md, "Page actions"). Order, as the search
 * API's: key (401) -> the key's action limit (429, or 503 when it cannot be checked) -> content
 * type (400) -> body size (413) -> schema (400) -> the action (429 at the key's browser limit, 503
 * at capacity, 502 when the page could not be opened, 504 after `timeoutMs`). A client that goes
 * away ends the call and its browser.
 */
export const pageAction =
  (ctx: ServiceContext, action: PageAction): Handler =>
  async (req: IncomingMessage, res: ServerResponse) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    let decision;
    try {
      decision = await ctx.actionLimiter.take(key.id, key.actionsPerMinute ?? ctx.config.actions.defaultRatePerMinute);
    } catch (err) {
      sendError(res, err, req.readableEnded ? {} : { connection: 'close' });
      return;
    }
    const limitHeaders = rateLimitHeaders(decision);
    let bodyRead = false;
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      if (!decision.allowed) {
        throw new TooManyRequests(
          `page action limit of ${decision.limit} per ${decision.windowSeconds} s exceeded; retry after ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        );
      }
      if (!isJson(req)) {
        throw new ValidationFailed([
          { field: 'content-type', message: `must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? null)}` },
        ]);
      }
      const text = await readBody(req, MAX_BODY_BYTES);
      bodyRead = true;
      const started = performance.now();
      if (action === 'fetch') {
        sendJson(res, 200, await ctx.actions.fetch(key, parseActionBody('fetch', text), gone.signal), limitHeaders);
      } else if (action === 'screenshot') {
        const request = parseActionBody('screenshot', text);
        sendBytes(res, await ctx.actions.screenshot(key, request, gone.signal), `image/${request.format}`, limitHeaders);
      } else {
        sendBytes(res, await ctx.actions.pdf(key, parseActionBody('pdf', text), gone.signal), 'application/pdf', limitHeaders);
      }
      ctx.metrics.actionSeconds.observe({ action }, (performance.now() - started) / 1000);
    } catch (err) {
      if (gone.signal.aborted) return;
      const status = sendError(res, err, bodyRead || req.readableEnded ? limitHeaders : { ...limitHeaders, connection: 'close' });
      if (status >= 500 && status !== 502 && status !== 503 && status !== 504) ctx.log.error({ err, action }, 'page action failed');
    }
  };

function sendBytes(res: ServerResponse, body: Buffer, type: string, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, 'content-type': type, 'content-length': String(body.length), 'cache-control': 'no-store' });
  res.end(body);
}
