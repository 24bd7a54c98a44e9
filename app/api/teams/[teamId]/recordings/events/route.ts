import { searchTeamRecordings } from '#portal/inspector/recordings.ts';
import { route } from '#app/_lib/api.ts';

/** Events of the team's recordings that match `?q&type&status&host&since&until&limit` (docs/api.md, section 6), newest first. */
export const GET = route<{ teamId: string }>(async ({ req, portal, actor, params }) => {
  const { matches, sessions, truncated } = await searchTeamRecordings(
    { vault: portal.vault, serviceUrl: portal.config.serviceUrl },
    actor,
    params.teamId,
    new URL(req.url).searchParams,
  );
  return { matches, sessions, truncated };
});
