import { BadGateway } from '#shared/errors.ts';
import { BackendUnavailable } from '#service/search/backend.ts';
import { withTries } from '#service/search/tries.ts';
import { parseSearchBody } from '#shared/protocol/search.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';
import { limitedJsonPost } from '../limited-post.ts';

/**
 * POST /v0/search: the checks of every limited POST, against the key's search limit
 * (limited-post.ts), then the schema (400) and the index (502). The searches to try after an
 * empty first page run within this one request, so they count once against the limit.
 */
export const search = (ctx: ServiceContext): Handler =>
  limitedJsonPost(ctx, {
    limiter: (c) => c.searchLimiter,
    quota: (key) => key.ratePerMinute,
    counted: 'requests',
    maxBodyBytes: (c) => c.config.search.maxBodyBytes,
    failure: 'search failed',
    answer: async (res, { text, limitHeaders }) => {
      const body = parseSearchBody(text, { defaultCount: ctx.config.search.results });
      const request = {
        query: body.query,
        language: body.language,
        limit: body.count ?? ctx.config.search.results,
        offset: body.offset,
        sites: body.sites,
        excludeSites: body.excludeSites,
        exact: body.exact,
      };
      let answer;
      try {
        // A first page that found nothing carries the searches to try that find something.
        answer = await withTries(ctx.search, request, await ctx.search.search(request));
      } catch (err) {
        if (err instanceof BackendUnavailable) {
          ctx.log.warn({ err: err.message }, 'search backend failed');
          throw new BadGateway('the search index could not answer; retrying is usually sufficient');
        }
        throw err;
      }
      sendJson(res, 200, answer, limitHeaders);
    },
  });
