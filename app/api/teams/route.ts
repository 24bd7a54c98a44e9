import { createTeam, listTeams } from '../../../lib/portal/teams.ts';
import { route } from '../../_lib/api.ts';

export const GET = route(async ({ portal, actor }) => ({ teams: await listTeams(portal.data, actor) }));
export const POST = route(async ({ portal, actor, body }) => ({ team: await createTeam(portal.data, actor, await body()) }));
