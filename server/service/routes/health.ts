import { bearerMatches } from '#shared/bearer.ts';
import { Unauthorized, UpgradeRequired } from '#shared/errors.ts';
import type { Handler } from '../../http/router.ts';
import { sendJson } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';

export const healthz =
  (ctx: ServiceContext): Handler =>
  async (_req, res) => {
    const search = await ctx.search.stats().then(
      (stats) => (stats.pages ? stats : { ...stats, note: 'the search index is empty; add pages with `npm run index -- SOURCE...`' }),
      () => ({ error: 'the search index cannot be opened' }),
    );
    const browsers = {
      live: ctx.fleet.size,
      warm: ctx.pool.idle,
      prepared: ctx.launcher?.prepared ?? 0,
      capacity: ctx.config.browser.capacity,
      // Starts waiting for room (`/start?queue=`): what an autoscaler watches.
      queued: ctx.fleet.queued.waiting,
      oldestQueuedSeconds: Math.round(ctx.fleet.queued.oldestSeconds * 10) / 10,
      isolation: ctx.isolation,
    };
    // A node draining before it stops answers 503 so that the balancer sends it no new clients; the
    // connections it has stay.
    if (ctx.fleet.draining) return sendJson(res, 503, { status: 'draining', browsers, search });
    // A node that cannot start browsers (the host cannot isolate them, or launches keep failing)
    // is unhealthy, and says why.
    const cannot =
      ctx.isolation.mode === 'unavailable'
        ? `this host cannot isolate browsers: ${ctx.isolation.problems.join('; ')}`
        : ctx.launchHealth.problem;
    if (cannot) return sendJson(res, 503, { status: 'unavailable', reason: cannot, browsers, search });
    if (!ctx.cluster) return sendJson(res, 200, { status: 'ok', browsers, search });
    // Several nodes: a node that cannot reach the shared state cannot serve browsers or searches,
    // and answers 503 so that the load balancer passes it over.
    const cluster = await ctx.cluster
      .health()
      .catch((err: Error) => ({ error: `the cluster's shared state cannot be reached: ${err.message}` }));
    sendJson(res, 'error' in cluster ? 503 : 200, { status: 'error' in cluster ? 'unavailable' : 'ok', browsers, search, cluster });
  };

export const metrics =
  (ctx: ServiceContext): Handler =>
  async (req, res) => {
    if (ctx.config.metricsToken && !bearerMatches(req.headers.authorization, ctx.config.metricsToken)) {
      throw new Unauthorized('/metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const text = await ctx.metrics.scrape();
    res.writeHead(200, { 'content-type': ctx.metrics.registry.contentType });
    res.end(text);
  };

/** A plain GET to a WebSocket endpoint. */
export const upgradeRequired: Handler = () => {
  throw new UpgradeRequired();
};
