import type { Metadata } from 'next';
import { dashboardSnapshot } from '#portal/live/browsers.ts';
import { listKeys } from '#portal/keys/vault.ts';
import { listProxies } from '#portal/keys/proxies.ts';
import { requireTeam } from '#app/_lib/team-page.ts';
import { Dashboard } from './dashboard.tsx';

export const metadata: Metadata = { title: 'Browsers' };

export default async function BrowsersPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor, user, team } = await requireTeam(teamId);
  const [snapshot, keys, proxies] = await Promise.all([
    dashboardSnapshot(portal, actor, team.id),
    listKeys(portal.vault, actor, team.id),
    listProxies(portal.vault, actor, team.id),
  ]);
  const usable = keys.filter((k) => !k.revokedAt).map((k) => ({ id: k.id, name: k.name, isDefault: k.isDefault }));
  return (
    <section className="stack" aria-labelledby="browsers-title">
      <div className="page-head">
        <div>
          <h2 id="browsers-title">Browsers</h2>
          <p>
            The team&apos;s remote Chromium instances, live. They keep running when you close the tab, until stopped or left unwatched for{' '}
            {Math.round(portal.config.live.idleMs / 60_000)} minutes.
          </p>
        </div>
      </div>
      <Dashboard
        teamId={team.id}
        me={user.id}
        initial={snapshot}
        renderedAt={Date.now()}
        keys={usable}
        proxies={proxies.map(({ id, name, scheme, host, port }) => ({ id, name, scheme, host, port }))}
        serviceUrl={portal.config.serviceUrl}
      />
    </section>
  );
}
