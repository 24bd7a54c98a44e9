import { publicVersion, requireBrowserId } from '../../../lib/browser/devtools-address.ts';
import { authenticate } from '../../../lib/keys/auth.ts';
import type { Handler } from '../../http/router.ts';
import { sendJson } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';

/** GET /json/version (spec 4.2): the instance's DevTools address, rewritten to the public one. */
export const jsonVersion = (ctx: ServiceContext): Handler => (req, res) => {
  const key = authenticate(ctx.keys, req.headers.authorization);
  const instance = ctx.fleet.get(requireBrowserId(req.headers['x-browser-id']), key.id);
  sendJson(res, 200, publicVersion(instance, ctx.advertised.ws));
};
