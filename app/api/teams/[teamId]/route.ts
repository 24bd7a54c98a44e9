import { getTeam, renameTeam } from '#portal/teams/teams.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({ team: await getTeam(portal.data, actor, params.teamId) }));
export const PATCH = route<P>(async ({ portal, actor, params, body }) => {
  await renameTeam(portal.data, actor, params.teamId, await body());
  return { team: await getTeam(portal.data, actor, params.teamId) };
});
