import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadGateway, TooManyRequests, ValidationFailed } from '#shared/errors.ts';
import { authenticate } from '#service/keys/auth.ts';
import { rateLimitHeaders } from '#service/ratelimit/limiter.ts';
import { BackendUnavailable } from '#service/search/backend.ts';
import { parseSearchBody } from '#shared/protocol/search.ts';
import { readBody } from '../../http/body.ts';
import { sendError, sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';

const isJson = (req: IncomingMessage) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(req.headers['content-type'] ?? '');

/**
 * POST /v0/search. Order: key (401, no limit headers) -> limit (429; 503 when it cannot be checked) -> content type (400) ->
 * body size (413) -> schema (400) -> index (502). Every answer after the limit check carries the
 * key's limit state; every authenticated request counts against the limit except one refused with 429 or 503.
 */
export const search =
  (ctx: ServiceContext): Handler =>
  async (req: IncomingMessage, res: ServerResponse) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    let decision;
    try {
      decision = await ctx.searchLimiter.take(key.id, key.ratePerMinute);
    } catch (err) {
      // The limit's store is away (503, Retry-After): refused, body unread, connection closed.
      sendError(res, err, req.readableEnded ? {} : { connection: 'close' });
      return;
    }
    const limitHeaders = rateLimitHeaders(decision);
    let bodyRead = false;
    try {
      if (!decision.allowed) {
        throw new TooManyRequests(
          `rate limit of ${decision.limit} requests per ${decision.windowSeconds} s exceeded; retry after ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        );
      }
      if (!isJson(req)) {
        throw new ValidationFailed([
          { field: 'content-type', message: `must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? null)}` },
        ]);
      }
      const text = await readBody(req, ctx.config.search.maxBodyBytes);
      bodyRead = true;
      const body = parseSearchBody(text, { defaultCount: ctx.config.search.results });
      let answer;
      try {
        answer = await ctx.search.search({
          query: body.query,
          language: body.language,
          limit: body.count ?? ctx.config.search.results,
          offset: body.offset,
          sites: body.sites,
          excludeSites: body.excludeSites,
          exact: body.exact,
        });
      } catch (err) {
        if (err instanceof BackendUnavailable) {
          ctx.log.warn({ err: err.message }, 'search backend failed');
          throw new BadGateway('the search index could not answer; retrying is usually sufficient');
        }
        throw err;
      }
      sendJson(res, 200, answer, limitHeaders);
    } catch (err) {
      // A body we did not read whole is not read at all: close the connection after answering.
      const status = sendError(res, err, bodyRead || req.readableEnded ? limitHeaders : { ...limitHeaders, connection: 'close' });
      if (status >= 500 && status !== 502) ctx.log.error({ err }, 'search failed');
    }
  };
