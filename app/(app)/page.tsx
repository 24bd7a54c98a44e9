import { redirect } from 'next/navigation.js';
import { currentTeam } from '#portal/teams/teams.ts';
import { requireSignedIn } from '../_lib/page-guard.ts';

/** Home: the remembered team's keys (or, for someone in no team, making one). */
export default async function Home() {
  const { portal, actor } = await requireSignedIn();
  const team = await currentTeam(portal.data, actor);
  redirect(team ? `/teams/${team.id}/keys` : '/teams/new');
}
