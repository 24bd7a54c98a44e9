import { currentTeamSchema } from '#portal/schemas.ts';
import { selectTeam } from '#portal/teams/teams.ts';
import { parseOrThrow } from '#portal/validation.ts';
import { route } from '#app/_lib/api.ts';

/** Remember the team chosen in the header. */
export const PUT = route(async ({ portal, actor, body }) => {
  const { teamId } = parseOrThrow(currentTeamSchema, await body());
  await selectTeam(portal.data, actor, teamId);
  return { currentTeamId: teamId };
});
