import type { Member, PortalData, Role, TeamWithRole } from '../data/portal-data.ts';
import { LastOwnerError } from '../data/portal-data.ts';
import { requireRole, type Actor } from './access.ts';
import { Conflict, Forbidden, NotFound } from '../errors.ts';
import { newId } from '../data/ids.ts';
import type { Vault } from '../keys/vault.ts';
import { changeRoleSchema, createTeamSchema, renameTeamSchema, teamRecordingSchema } from '../schemas.ts';
import { parseOrThrow } from '../validation.ts';

export async function listTeams(data: PortalData, actor: Actor): Promise<TeamWithRole[]> {
  return data.teamsOf(actor.userId);
}

/** The team the user last chose, if still a member; else the personal (first) team; null when in none. */
export async function currentTeam(data: PortalData, actor: Actor): Promise<TeamWithRole | null> {
  const [user, teams] = await Promise.all([data.userById(actor.userId), data.teamsOf(actor.userId)]);
  return teams.find((t) => t.id === user?.currentTeamId) ?? teams[0] ?? null;
}

export async function selectTeam(data: PortalData, actor: Actor, teamId: string): Promise<void> {
  await requireRole(data, actor, teamId, 'member');
  await data.setCurrentTeam(actor.userId, teamId);
}

export async function getTeam(data: PortalData, actor: Actor, teamId: string): Promise<TeamWithRole> {
  const m = await requireRole(data, actor, teamId, 'member');
  const team = await data.team(teamId);
  if (!team) throw new NotFound('no such team');
  return { ...team, role: m.role };
}

export async function createTeam(data: PortalData, actor: Actor, input: unknown): Promise<TeamWithRole> {
  const { name } = parseOrThrow(createTeamSchema, input);
  const team = { id: newId('team'), name, personal: false, createdAt: Date.now() };
  await data.createTeam(team, actor.userId, { teamId: team.id, actorId: actor.userId, action: 'team.created', subject: name });
  await data.setCurrentTeam(actor.userId, team.id);
  return { ...team, role: 'owner' };
}

export async function renameTeam(data: PortalData, actor: Actor, teamId: string, input: unknown): Promise<void> {
  await requireRole(data, actor, teamId, 'admin');
  const { name } = parseOrThrow(renameTeamSchema, input);
  const old = await data.team(teamId);
  await data.renameTeam(teamId, name, {
    teamId,
    actorId: actor.userId,
    action: 'team.renamed',
    subject: name,
    detail: { from: old?.name },
  });
}

export async function listMembers(data: PortalData, actor: Actor, teamId: string): Promise<Member[]> {
  await requireRole(data, actor, teamId, 'member');
  return data.members(teamId);
}

async function targetOf(data: PortalData, teamId: string, userId: string) {
  const target = await data.membership(teamId, userId);
  if (!target) throw new NotFound('no such member in this team');
  const user = await data.userById(userId);
  return { target, email: user?.email ?? userId };
}

/**
 * Owners change any role; admins move people between member and admin but never touch owners
 * or make one. Nobody changes their own role except an owner stepping down, and never the last owner.
 */
export async function changeRole(data: PortalData, actor: Actor, teamId: string, userId: string, input: unknown): Promise<void> {
  const me = await requireRole(data, actor, teamId, 'admin');
  const { role } = parseOrThrow(changeRoleSchema, input);
  const { target, email } = await targetOf(data, teamId, userId);
  if (me.role !== 'owner' && (target.role === 'owner' || role === 'owner')) throw new Forbidden('only owners can make or change owners');
  if (userId === actor.userId && me.role !== 'owner') throw new Forbidden('you cannot change your own role');
  if (target.role === role) return;
  await guardLastOwner(() =>
    data.changeMembership(teamId, userId, role, {
      teamId,
      actorId: actor.userId,
      action: 'member.role_changed',
      subject: email,
      detail: { from: target.role, to: role },
    }),
  );
}

/** Remove someone, or (userId = yourself) leave. */
export async function removeMember(data: PortalData, actor: Actor, teamId: string, userId: string): Promise<void> {
  const self = userId === actor.userId;
  const me = await requireRole(data, actor, teamId, self ? 'member' : 'admin');
  const { target, email } = await targetOf(data, teamId, userId);
  if (!self && me.role !== 'owner' && target.role === 'owner') throw new Forbidden('only owners can remove an owner');
  await guardLastOwner(() =>
    data.changeMembership(teamId, userId, null, {
      teamId,
      actorId: actor.userId,
      action: self ? 'member.left' : 'member.removed',
      subject: email,
      detail: { role: target.role },
    }),
  );
}

async function guardLastOwner(change: () => Promise<void>): Promise<void> {
  try {
    await change();
  } catch (err) {
    if (err instanceof LastOwnerError || (err as Error).name === 'LastOwnerError') {
      throw new Conflict('A team needs at least one owner. Make someone else an owner first.');
    }
    throw err;
  }
}

export const roleLabel = (role: Role): string => ({ owner: 'Owner', admin: 'Admin', member: 'Member' })[role];

/**
 * Record every browser of the team's keys, or stop (owners and admins): the keys this portal issued
 * change at once (from their next browser), and keys it issues later follow the setting. Keys added
 * from elsewhere cannot be changed from here: their count comes back, so the page can say so.
 */
export async function setTeamRecording(
  v: Vault,
  actor: Actor,
  teamId: string,
  input: unknown,
): Promise<{ record: boolean; changed: number; elsewhere: number }> {
  await requireRole(v.data, actor, teamId, 'admin');
  const { record } = parseOrThrow(teamRecordingSchema, input);
  let changed = 0;
  let elsewhere = 0;
  for (const key of await v.data.keys(teamId)) {
    if (key.revokedAt !== null) continue;
    if (key.serviceKeyId && v.issuer.available && (await v.issuer.setRecord(key.serviceKeyId, record))) changed++;
    else elsewhere++;
  }
  await v.data.setTeamRecording(teamId, record, {
    teamId,
    actorId: actor.userId,
    action: record ? 'team.recording_on' : 'team.recording_off',
    subject: (await v.data.team(teamId))?.name ?? teamId,
    detail: { keys: changed, elsewhere },
  });
  return { record, changed, elsewhere };
}
