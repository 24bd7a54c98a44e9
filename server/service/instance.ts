import type { IncomingHttpHeaders } from 'node:http';
import { requireBrowserId } from '#service/browser/devtools-address.ts';
import type { Instance } from '#service/browser/fleet.ts';
import { authenticate } from '#service/keys/auth.ts';
import type { ServiceContext } from './context.ts';

/**
 * The live instance a request names with `Authorization` and `X-Browser-ID` (docs/api.md, section 2): 401 for a
 * bad key, 400 for a malformed id, 404 for an id that is not this key's live browser.
 */
export async function requireInstance(ctx: ServiceContext, headers: IncomingHttpHeaders): Promise<Instance> {
  const key = await authenticate(ctx.keys, headers.authorization);
  return ctx.fleet.get(requireBrowserId(headers['x-browser-id']), key.id);
}
