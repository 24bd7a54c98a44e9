import { revokeLiveLink } from '#portal/live/links.ts';
import { route } from '#app/_lib/api.ts';

/** Revoke a shared link: views open through it close at once. */
export const DELETE = route<{ teamId: string; instanceId: string; linkId: string }>(async ({ portal, actor, params }) => {
  await revokeLiveLink(portal, actor, params.teamId, params.instanceId, params.linkId);
  return { ok: true };
});
