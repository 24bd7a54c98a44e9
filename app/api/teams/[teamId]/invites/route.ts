import { createInvite, listInvites } from '#portal/teams/invites.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({ invites: await listInvites(portal.data, actor, params.teamId) }));
/** The link is in this answer only. */
export const POST = route<P>(async ({ portal, actor, params, body }) => {
  const { invite, token } = await createInvite(portal.data, actor, params.teamId, await body(), portal.config.inviteTtlMs);
  return { invite, url: `${portal.config.publicUrl}/invite/${token}` };
});
