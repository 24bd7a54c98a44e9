import { inviteTokenOf, previewInvite } from '#portal/teams/invites.ts';
import type { Portal } from '#portal/runtime.ts';

/** When sign-in or sign-up leads back to an open invitation: which team, and who invited. */
export async function invitationFor(p: Portal, callbackUrl: string): Promise<{ teamName: string; invitedBy: string } | null> {
  const token = inviteTokenOf(callbackUrl);
  if (!token) return null;
  const preview = await previewInvite(p.data, null, token).catch(() => null);
  return preview?.status === 'open' ? { teamName: preview.teamName, invitedBy: preview.invitedBy } : null;
}
