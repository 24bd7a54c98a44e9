import type { Metadata } from 'next';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { listProxies } from '#portal/keys/proxies.ts';
import { LeaveTeam, RenameTeamForm, TeamRecording } from './settings-client.tsx';
import { TeamProxies } from './proxies-client.tsx';

export const metadata: Metadata = { title: 'Team settings' };

export default async function SettingsPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor, team, user } = await requireTeam(teamId);
  const proxies = await listProxies(portal.vault, actor, team.id);
  return (
    <div className="stack">
      <section className="card" aria-labelledby="name-title">
        <div className="card-header">
          <h2 id="name-title">Team name</h2>
        </div>
        <div className="card-body">
          {canManage(team) ? (
            <RenameTeamForm teamId={team.id} name={team.name} />
          ) : (
            <p>
              {team.name} <span className="muted">(owners and admins can rename the team)</span>
            </p>
          )}
        </div>
      </section>
      <section className="card" aria-labelledby="recording-title">
        <div className="card-header">
          <h2 id="recording-title">Session recordings</h2>
        </div>
        <div className="card-body stack">
          <p className="muted">
            Off by default. When on, the browser service records what every browser of the team&apos;s keys does (pages, console, network
            without headers or bodies, the screen), whether a script or this portal started it, and keeps it for the service&apos;s
            retention. Members see recordings under Recordings.
          </p>
          <TeamRecording teamId={team.id} record={Boolean(team.recordSessions)} canChange={canManage(team)} />
        </div>
      </section>
      <section className="card" aria-labelledby="proxies-title">
        <div className="card-header">
          <h2 id="proxies-title">Proxies</h2>
        </div>
        <div className="card-body stack">
          <p className="muted">
            Upstream proxies a browser of the team can send its traffic through (a company&apos;s egress, a proxy in another country),
            chosen by name when it starts. The address and its password are kept encrypted, like the team&apos;s API keys.
          </p>
          <TeamProxies teamId={team.id} proxies={proxies} canChange={canManage(team)} />
        </div>
      </section>
      <section className="card" aria-labelledby="leave-title">
        <div className="card-header">
          <h2 id="leave-title">Leave team</h2>
        </div>
        <div className="card-body stack">
          <p className="muted">You lose access to this team and its keys. A team always keeps at least one owner.</p>
          <LeaveTeam teamId={team.id} userId={user.id} />
        </div>
      </section>
    </div>
  );
}
