import { publicVersion } from '#service/browser/devtools-address.ts';
import type { Handler } from '../../http/router.ts';
import { sendJson } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';
import { requireInstance } from '../instance.ts';

/** GET /json/version (docs/api.md, section 2): the instance's DevTools address, rewritten to the public one. */
export const jsonVersion =
  (ctx: ServiceContext): Handler =>
  async (req, res) => {
    const instance = await requireInstance(ctx, req.headers);
    sendJson(res, 200, publicVersion(instance, ctx.advertised.ws, ctx.tickets.issue(instance.id, instance.browser.guid)));
  };
