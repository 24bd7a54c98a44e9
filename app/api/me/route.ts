import { currentTeam, listTeams } from '../../../lib/portal/teams.ts';
import { route } from '../../_lib/api.ts';

export const GET = route(async ({ portal, user, actor }) => ({
  user,
  teams: await listTeams(portal.data, actor),
  currentTeamId: (await currentTeam(portal.data, actor))?.id ?? null,
}));
