import { deleteProxy } from '#portal/keys/proxies.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; proxyId: string };
export const DELETE = route<P>(async ({ portal, actor, params }) => {
  await deleteProxy(portal.vault, actor, params.teamId, params.proxyId);
  return { ok: true };
});
