import { teamProfiles } from '#portal/keys/profiles.ts';
import { route } from '#app/_lib/api.ts';

export const GET = route<{ teamId: string }>(async ({ portal, actor, params }) =>
  teamProfiles({ vault: portal.vault, serviceUrl: portal.config.serviceUrl }, actor, params.teamId),
);
