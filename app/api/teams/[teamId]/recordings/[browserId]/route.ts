import { teamRecording } from '#portal/inspector/recordings.ts';
import { route } from '#app/_lib/api.ts';

/** The recording's events after `?after=SEQ` (all without it). */
export const GET = route<{ teamId: string; browserId: string }>(async ({ req, portal, actor, params }) => ({
  recording: await teamRecording(
    { vault: portal.vault, serviceUrl: portal.config.serviceUrl },
    actor,
    params.teamId,
    params.browserId,
    new URL(req.url).searchParams.get('after'),
  ),
}));
