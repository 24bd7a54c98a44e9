import { changeRole, removeMember } from '#portal/teams/teams.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; userId: string };
export const PATCH = route<P>(async ({ portal, actor, params, body }) => {
  await changeRole(portal.data, actor, params.teamId, params.userId, await body());
});
/** Remove a member, or leave (your own user id). */
export const DELETE = route<P>(async ({ portal, actor, params }) => {
  await removeMember(portal.data, actor, params.teamId, params.userId);
});
