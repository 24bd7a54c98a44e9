import type { Membership, PortalData, Role } from '../data/portal-data.ts';
import { Forbidden, NotFound } from '../errors.ts';

/** Who is acting: the signed-in user. Every domain function takes one. */
export type Actor = { userId: string };

const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1 };

export const atLeast = (role: Role, min: Role): boolean => RANK[role] >= RANK[min];

/**
 * The authorization check of every team-scoped read and write. A user who is not a member gets
 * NotFound, exactly as for a team that does not exist, so ids of other teams reveal nothing;
 * a member whose role is too low gets Forbidden.
 */
export async function requireRole(data: PortalData, actor: Actor, teamId: string, min: Role): Promise<Membership> {
  const membership = await data.membership(teamId, actor.userId);
  if (!membership) throw new NotFound('no such team');
  if (!atLeast(membership.role, min)) {
    throw new Forbidden(min === 'owner' ? 'only owners of this team can do that' : 'only owners and admins of this team can do that');
  }
  return membership;
}
