import type { ServerResponse } from 'node:http';
import { ValidationFailed } from '#shared/errors.ts';
import { parseActionBody, type PageAction } from '#shared/protocol/actions.ts';
import { PROXY_HEADER, parseUpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';
import { limitedJsonPost } from '../limited-post.ts';

/** A page action's body is a few fields: 16 KiB is room for the longest address and every option. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * POST /v0/fetch, /v0/screenshot and /v0/pdf (docs/api.md, "Page actions"): the checks of every
 * limited POST, against the key's page action limit (limited-post.ts), then the schema (400) and
 * the action (429 at the key's browser limit, 503 at capacity, 502 when the page could not be
 * opened, 504 after `timeoutMs`). A client that goes away ends the call and its browser.
 */
export const pageAction = (ctx: ServiceContext, action: PageAction): Handler =>
  limitedJsonPost(ctx, {
    limiter: (c) => c.actionLimiter,
    quota: (key, c) => key.actionsPerMinute ?? c.config.actions.defaultRatePerMinute,
    counted: 'page actions',
    maxBodyBytes: () => MAX_BODY_BYTES,
    failure: `page action ${action} failed`,
    answer: async (res, { key, text, limitHeaders, gone }) => {
      const started = performance.now();
      const proxy = parseUpstreamProxy(res.req.headers[PROXY_HEADER]);
      if (!proxy.ok) throw new ValidationFailed(proxy.issues, 'the X-Browser-Proxy header breaks the rules');
      const route = { upstream: proxy.proxy };
      if (action === 'fetch') {
        sendJson(res, 200, await ctx.actions.fetch(key, parseActionBody('fetch', text), gone, route), limitHeaders);
      } else if (action === 'screenshot') {
        const request = parseActionBody('screenshot', text);
        sendBytes(res, await ctx.actions.screenshot(key, request, gone, route), `image/${request.format}`, limitHeaders);
      } else {
        sendBytes(res, await ctx.actions.pdf(key, parseActionBody('pdf', text), gone, route), 'application/pdf', limitHeaders);
      }
      ctx.metrics.actionSeconds.observe({ action }, (performance.now() - started) / 1000);
    },
  });

function sendBytes(res: ServerResponse, body: Buffer, type: string, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, 'content-type': type, 'content-length': String(body.length), 'cache-control': 'no-store' });
  res.end(body);
}
