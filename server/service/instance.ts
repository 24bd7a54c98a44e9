import type { IncomingHttpHeaders } from 'node:http';
import { ConnectTickets } from '#service/browser/connect-tickets.ts';
import { requireBrowserId } from '#service/browser/devtools-address.ts';
import type { Instance } from '#service/browser/fleet.ts';
import { authenticate } from '#service/keys/auth.ts';
import { NotFound, Unauthorized } from '#shared/errors.ts';
import type { ServiceContext } from './context.ts';

/**
 * The live instance a request names with `Authorization` and `X-Browser-ID` (docs/api.md, section 2): 401 for a
 * bad key, 400 for a malformed id, 404 for an id that is not this key's live browser.
 */
export async function requireInstance(ctx: ServiceContext, headers: IncomingHttpHeaders): Promise<Instance> {
  const key = await authenticate(ctx.keys, headers.authorization);
  return ctx.fleet.get(requireBrowserId(headers['x-browser-id']), key.id);
}

/**
 * The instance a DevTools address names: by its connect ticket (`?ticket=`, for clients that send
 * no headers) when it has one, else as requireInstance. A ticket that is malformed or not the
 * service's is 401; one whose browser has ended is 404, as an ended browser is with a key.
 */
export async function requireDevtoolsInstance(ctx: ServiceContext, headers: IncomingHttpHeaders, url: URL): Promise<Instance> {
  const ticket = url.searchParams.get('ticket');
  if (ticket === null) return requireInstance(ctx, headers);
  const id = ConnectTickets.browserIdOf(ticket);
  if (!id || url.searchParams.getAll('ticket').length > 1) throw new Unauthorized('malformed connect ticket');
  const instance = ctx.fleet.find(id);
  if (!instance) throw new NotFound('no live browser for that connect ticket: it ended');
  if (!ctx.tickets.valid(ticket, instance.id, instance.browser.guid)) throw new Unauthorized('invalid connect ticket');
  return instance;
}
