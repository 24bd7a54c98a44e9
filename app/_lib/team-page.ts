import { notFound } from 'next/navigation.js';
import type { TeamWithRole } from '#portal/data/portal-data.ts';
import { asDomainError } from '#portal/errors.ts';
import { getTeam } from '#portal/teams/teams.ts';
import { requireSignedIn } from './page-guard.ts';
import type { Signed } from './session.ts';

/** For team pages: the signed-in member and the team, or the not-found page for anyone else. */
export async function requireTeam(teamId: string): Promise<Signed & { team: TeamWithRole }> {
  const s = await requireSignedIn();
  try {
    return { ...s, team: await getTeam(s.portal.data, s.actor, teamId) };
  } catch (err) {
    if (asDomainError(err)?.code === 'not_found') notFound();
    throw err;
  }
}

export const canManage = (team: TeamWithRole): boolean => team.role === 'owner' || team.role === 'admin';
