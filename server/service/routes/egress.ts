import type { EgressProxy } from '#service/browser/egress/proxy.ts';
import { ValidationFailed } from '#shared/errors.ts';
import { egressHost, type EgressJudgement } from '#shared/protocol/egress.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';
import { requireInstance } from '../instance.ts';

/**
 * GET /v0/browser/egress?host= (docs/api.md, "Network egress"): how the egress proxy judges `host`
 * for the browser named by `Authorization` and `X-Browser-ID`. It tells the holder no more than
 * the proxy's own plain-http answers already do; it opens no connection.
 */
export const judgeEgress =
  (ctx: ServiceContext, egress: Pick<EgressProxy, 'judge'>): Handler =>
  async (req, res, url) => {
    const instance = await requireInstance(ctx, req.headers);
    for (const name of url.searchParams.keys())
      if (name !== 'host') throw new ValidationFailed([{ field: name, message: 'unknown query parameter' }], 'the query does not match');
    const given = url.searchParams.getAll('host');
    const parsed = egressHost.safeParse(given.length === 1 ? given[0] : undefined);
    if (!parsed.success) {
      const message = given.length > 1 ? 'give host once' : (parsed.error.issues[0]?.message ?? 'host is required');
      throw new ValidationFailed([{ field: 'host', message }], `host: ${message}`);
    }
    const host = parsed.data.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    const failure = instance.browser.egressFailure(host);
    const answer: EgressJudgement = failure ? { host, verdict: 'through-proxy', detail: failure } : { host, ...(await egress.judge(host)) };
    sendJson(res, 200, answer);
  };
