import { setTeamRecording } from '#portal/teams/teams.ts';
import { route } from '#app/_lib/api.ts';

/** `{ "record": true|false }`: record every browser of the team's keys, or stop (owners and admins). */
export const PUT = route<{ teamId: string }>(async ({ portal, actor, params, body }) =>
  setTeamRecording(portal.vault, actor, params.teamId, await body()),
);
