import { revokeInvite } from '#portal/teams/invites.ts';
import { route } from '#app/_lib/api.ts';

export const DELETE = route<{ teamId: string; inviteId: string }>(async ({ portal, actor, params }) => {
  await revokeInvite(portal.data, actor, params.teamId, params.inviteId);
});
