import { addProxy, listProxies } from '#portal/keys/proxies.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({ proxies: await listProxies(portal.vault, actor, params.teamId) }));
/** The address is sealed as it arrives; the answer, like every later one, names only scheme, host and port. */
export const POST = route<P>(async ({ portal, actor, params, body }) => ({
  proxy: await addProxy(portal.vault, actor, params.teamId, await body()),
}));
