import type { IncomingMessage, ServerResponse } from 'node:http';
import { TooManyRequests, ValidationFailed } from '#shared/errors.ts';
import { authenticate } from '#service/keys/auth.ts';
import type { ApiKey } from '#service/keys/store.ts';
import { rateLimitHeaders, type RateLimiter } from '#service/ratelimit/limiter.ts';
import { readBody } from '../http/body.ts';
import { sendError } from '../http/respond.ts';
import type { Handler } from '../http/router.ts';
import type { ServiceContext } from './context.ts';

const isJson = (req: IncomingMessage) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(req.headers['content-type'] ?? '');

/** What an answer is given: the caller's key, the body's text, the limit headers every answer carries, and the client's going away. */
export type LimitedCall = { key: ApiKey; text: string; limitHeaders: Record<string, string>; gone: AbortSignal };

export type LimitedPost = {
  /** The limiter the requests count against, and the key's quota a window. */
  limiter: (ctx: ServiceContext) => RateLimiter;
  quota: (key: ApiKey, ctx: ServiceContext) => number;
  /** What is counted, for the 429's words: `requests`, `page actions`. */
  counted: string;
  maxBodyBytes: (ctx: ServiceContext) => number;
  /** The work once the request passed every check; it writes the answer. */
  answer: (res: ServerResponse, call: LimitedCall) => Promise<void>;
  /** What the log calls a failure of the service's own (500). */
  failure: string;
};

/**
 * The frame of a POST whose requests count against a per-key limit (the search API, the page
 * actions; docs/api.md). Order: key (401, no limit headers) -> limit (429; 503 when it cannot be
 * checked: refused, body unread, connection closed) -> content type (400) -> body size (413) ->
 * `answer`. Every answer after the limit check carries the key's limit state; every authenticated
 * request counts against the limit except one refused with 429 or 503. A body not read whole is
 * not read at all: the connection closes after the answer. A client that goes away aborts `gone`.
 */
export const limitedJsonPost =
  (ctx: ServiceContext, o: LimitedPost): Handler =>
  async (req: IncomingMessage, res: ServerResponse) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    let decision;
    try {
      decision = await o.limiter(ctx).take(key.id, o.quota(key, ctx));
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
          `rate limit of ${decision.limit} ${o.counted} per ${decision.windowSeconds} s exceeded; retry after ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        );
      }
      if (!isJson(req)) {
        throw new ValidationFailed([
          { field: 'content-type', message: `must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? null)}` },
        ]);
      }
      const text = await readBody(req, o.maxBodyBytes(ctx));
      bodyRead = true;
      await o.answer(res, { key, text, limitHeaders, gone: gone.signal });
    } catch (err) {
      if (gone.signal.aborted) return;
      const status = sendError(res, err, bodyRead || req.readableEnded ? limitHeaders : { ...limitHeaders, connection: 'close' });
      if (status === 500) ctx.log.error({ err }, o.failure);
    }
  };
