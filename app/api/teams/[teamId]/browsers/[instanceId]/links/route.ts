import { createLiveLink, listLiveLinks } from '#portal/live/links.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; instanceId: string };
/** The browser's shared links that still open it. */
export const GET = route<P>(async ({ portal, actor, params }) => ({
  links: await listLiveLinks(portal, actor, params.teamId, params.instanceId),
}));
/** `{ mode?: "watch" | "control", minutes?: 5..10080, label?: string }`; the address is in this answer only. */
export const POST = route<P>(async ({ portal, actor, params, body }) => {
  const { link, token } = await createLiveLink(portal, actor, params.teamId, params.instanceId, await body());
  return { link, url: `${portal.config.publicUrl}/embed/${token}` };
});
