import { currentTeamSchema } from '../../../../lib/portal/schemas.ts';
import { selectTeam } from '../../../../lib/portal/teams.ts';
import { parseOrThrow } from '../../../../lib/portal/validation.ts';
import { route } from '../../../_lib/api.ts';

/** Remember the team chosen in the header. */
export const PUT = route(async ({ portal, actor, body }) => {
  const { teamId } = parseOrThrow(currentTeamSchema, await body());
  await selectTeam(portal.data, actor, teamId);
  return { currentTeamId: teamId };
});
