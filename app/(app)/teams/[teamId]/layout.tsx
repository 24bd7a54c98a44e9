import type { ReactNode } from 'react';
import { roleLabel } from '#portal/teams/teams.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { Badge } from '#app/_ui/badge.tsx';
import { TeamTabs } from './team-tabs.tsx';

export default async function TeamLayout({ children, params }: { children: ReactNode; params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { team } = await requireTeam(teamId);
  return (
    <div className="stack">
      <div className="row">
        <h1>{team.name}</h1>
        {team.personal && <Badge>Personal</Badge>}
        <Badge tone="accent">{roleLabel(team.role)}</Badge>
      </div>
      <TeamTabs teamId={team.id} showAudit={canManage(team)} />
      {children}
    </div>
  );
}
