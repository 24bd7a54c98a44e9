import { deleteTeamProfile } from '#portal/keys/profiles.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; keyId: string; name: string };
export const DELETE = route<P>(async ({ portal, actor, params }) => {
  await deleteTeamProfile({ vault: portal.vault, serviceUrl: portal.config.serviceUrl }, actor, params.teamId, {
    keyId: params.keyId,
    name: params.name,
  });
  return { ok: true };
});
