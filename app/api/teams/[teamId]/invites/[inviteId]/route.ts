import { revokeInvite } from '../../../../../../lib/portal/invites.ts';
import { route } from '../../../../../_lib/api.ts';

export const DELETE = route<{ teamId: string; inviteId: string }>(async ({ portal, actor, params }) => {
  await revokeInvite(portal.data, actor, params.teamId, params.inviteId);
});
