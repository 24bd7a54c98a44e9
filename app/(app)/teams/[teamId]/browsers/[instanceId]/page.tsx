import { asDomainError } from '#portal/errors.ts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation.js';
import { getBrowser } from '#portal/live/browsers.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import type { JoinMode } from '#app/_live/live-view.tsx';
import { Link } from '#app/_ui/link.tsx';
import { RenameBrowser } from './rename.tsx';
import { LiveBrowserPanel } from './live-page.tsx';

export const metadata: Metadata = { title: 'Live browser' };

type Search = { mode?: string | string[] };

export default async function LiveBrowserPage({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string; instanceId: string }>;
  searchParams: Promise<Search>;
}) {
  const { teamId, instanceId } = await params;
  const requested = (await searchParams).mode;
  const mode: JoinMode = requested === 'watch' || requested === 'control' ? requested : 'auto';
  const { portal, actor, team } = await requireTeam(teamId);
  const browser = await getBrowser(portal, actor, team.id, instanceId).catch((err: unknown) => {
    if (asDomainError(err)?.code === 'not_found') notFound();
    throw err;
  });
  const about = browser.attached
    ? `A browser a script started with the key “${browser.keyName}”, watched here since ${browser.startedBy.name} opened it. It stays the script's: leaving lets go of it, not of the browser.`
    : `Started by ${browser.startedBy.name} with the key “${browser.keyName}”.`;
  return (
    <section className="stack live-page" aria-labelledby="live-title">
      <LiveBrowserPanel
        teamId={team.id}
        instanceId={browser.id}
        name={browser.name}
        me={actor.userId}
        mode={mode}
        canStop={browser.canStop}
        canTakeControl={canManage(team)}
        attached={browser.attached}
        rename={<RenameBrowser teamId={team.id} instanceId={browser.id} name={browser.name} />}
        heading={
          <div className="live-head">
            <Link href={`/teams/${team.id}/browsers`}>← All browsers</Link>
            <h2 id="live-title">{browser.name}</h2>
            <p className="live-head-note" title={about}>
              {about}
            </p>
          </div>
        }
      />
    </section>
  );
}
