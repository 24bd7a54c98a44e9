import { teamRecordings } from '#portal/inspector/recordings.ts';
import { route } from '#app/_lib/api.ts';

export const GET = route<{ teamId: string }>(async ({ portal, actor, params }) => ({
  recordings: await teamRecordings(
    { vault: portal.vault, serviceUrl: portal.config.serviceUrl, browsers: portal.browsers },
    actor,
    params.teamId,
  ),
}));
