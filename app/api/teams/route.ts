import { createTeam, listTeams } from '#portal/teams/teams.ts';
import { route } from '#app/_lib/api.ts';

export const GET = route(async ({ portal, actor }) => ({ teams: await listTeams(portal.data, actor) }));
export const POST = route(async ({ portal, actor, body }) => ({ team: await createTeam(portal.data, actor, await body()) }));
