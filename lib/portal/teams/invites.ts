import type { Invite, PortalData } from '../data/portal-data.ts';
import { requireRole, type Actor } from './access.ts';
import { Conflict, Forbidden, Gone, NotFound } from '../errors.ts';
import { hashToken, newId, newToken } from '../data/ids.ts';
import { createInviteSchema } from '../schemas.ts';
import { parseOrThrow } from '../validation.ts';

export type InviteView = { id: string; role: Invite['role']; createdAt: number; expiresAt: number };
const view = (i: Invite): InviteView => ({ id: i.id, role: i.role, createdAt: i.createdAt, expiresAt: i.expiresAt });

/**
 * A single-use link that expires. Only the token's hash is stored: the link is shown once, to
 * the owner or admin who made it.
 */
export async function createInvite(
  data: PortalData,
  actor: Actor,
  teamId: string,
  input: unknown,
  ttlMs: number,
): Promise<{ invite: InviteView; token: string }> {
  const me = await requireRole(data, actor, teamId, 'admin');
  const { role } = parseOrThrow(createInviteSchema, input);
  if (role === 'admin' && me.role !== 'owner' && me.role !== 'admin') throw new Forbidden();
  const { token, hash } = newToken();
  const now = Date.now();
  const invite: Invite = {
    id: newId('inv'),
    teamId,
    tokenHash: hash,
    role,
    createdBy: actor.userId,
    createdAt: now,
    expiresAt: now + ttlMs,
    usedAt: null,
    usedBy: null,
    revokedAt: null,
  };
  await data.createInvite(invite, {
    teamId,
    actorId: actor.userId,
    action: 'invite.created',
    subject: invite.id,
    detail: { role, expiresAt: invite.expiresAt },
  });
  return { invite: view(invite), token };
}

export async function listInvites(data: PortalData, actor: Actor, teamId: string): Promise<InviteView[]> {
  await requireRole(data, actor, teamId, 'admin');
  return (await data.pendingInvites(teamId, Date.now())).map(view);
}

export async function revokeInvite(data: PortalData, actor: Actor, teamId: string, inviteId: string): Promise<void> {
  await requireRole(data, actor, teamId, 'admin');
  const ok = await data.revokeInvite(teamId, inviteId, Date.now(), {
    teamId,
    actorId: actor.userId,
    action: 'invite.revoked',
    subject: inviteId,
  });
  if (!ok) throw new NotFound('no such pending invitation');
}

export type InvitePreview = {
  teamName: string;
  role: Invite['role'];
  /** Who sent it, by name (never their address: the link may travel). */
  invitedBy: string;
  status: 'open' | 'used' | 'expired' | 'revoked' | 'member';
};

/** The token of an invitation link's path (`/invite/TOKEN`), or null for any other path. */
export function inviteTokenOf(path: string): string | null {
  return /^\/invite\/([A-Za-z0-9_-]{16,128})$/.exec(path)?.[1] ?? null;
}

/**
 * What the invitation page shows: which team, who invited, which role, and whether it can still be
 * used. Holding the link is enough to see this much, signed in (`actor`) or not (null).
 */
export async function previewInvite(data: PortalData, actor: Actor | null, token: string): Promise<InvitePreview> {
  const invite = await data.inviteByTokenHash(hashToken(token));
  if (!invite) throw new NotFound('This invitation link is not valid.');
  const team = await data.team(invite.teamId);
  if (!team) throw new NotFound('This invitation link is not valid.');
  const member = actor ? await data.membership(invite.teamId, actor.userId) : null;
  const inviter = await data.userById(invite.createdBy);
  const status =
    invite.revokedAt !== null
      ? 'revoked'
      : invite.usedAt !== null
        ? 'used'
        : invite.expiresAt <= Date.now()
          ? 'expired'
          : member
            ? 'member'
            : 'open';
  return { teamName: team.name, role: invite.role, invitedBy: inviter?.name || 'A teammate', status };
}

export async function acceptInvite(data: PortalData, actor: Actor, token: string): Promise<{ teamId: string }> {
  const invite = await data.inviteByTokenHash(hashToken(token));
  if (!invite) throw new NotFound('This invitation link is not valid.');
  const user = await data.userById(actor.userId);
  const result = await data.acceptInvite(invite.id, actor.userId, Date.now(), {
    teamId: invite.teamId,
    actorId: actor.userId,
    action: 'member.joined',
    subject: user?.email ?? actor.userId,
    detail: { role: invite.role, invite: invite.id },
  });
  switch (result) {
    case 'accepted':
      await data.setCurrentTeam(actor.userId, invite.teamId);
      return { teamId: invite.teamId };
    case 'already-member':
      throw new Conflict('You are already a member of this team.');
    case 'used':
      throw new Gone('This invitation has already been used.');
    case 'expired':
      throw new Gone('This invitation has expired. Ask for a new one.');
    case 'revoked':
      throw new Gone('This invitation was withdrawn.');
  }
}
