import type { Metadata } from 'next';
import { teamRecording } from '#portal/inspector/recordings.ts';
import { asDomainError } from '#portal/errors.ts';
import { compare, sideOf } from '#app/_inspector/compare.ts';
import { ComparisonView, type Run } from '#app/_inspector/comparison.tsx';
import { formatDate } from '#app/_lib/format.ts';
import { requireTeam } from '#app/_lib/team-page.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Link } from '#app/_ui/link.tsx';

export const metadata: Metadata = { title: 'Compare recordings' };

const BROWSER_ID = /^br_[A-Za-z0-9_-]{32}$/;

/** Two of the team's recordings side by side, from `?run=ID&run=ID` (the Recordings page's Compare). */
export default async function ComparePage({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string }>;
  searchParams: Promise<{ run?: string | string[] }>;
}) {
  const { teamId } = await params;
  const { portal, actor, team } = await requireTeam(teamId);
  const asked = [(await searchParams).run ?? []].flat();
  const back = <Link href={`/teams/${team.id}/recordings`}>All recordings</Link>;
  const head = (
    <div className="row" style={{ justifyContent: 'space-between' }}>
      <h2 id="compare-title">Compare two runs</h2>
      {back}
    </div>
  );
  if (asked.length !== 2 || !asked.every((id) => BROWSER_ID.test(id)) || asked[0] === asked[1]) {
    return (
      <section className="stack" aria-labelledby="compare-title">
        {head}
        <Alert tone="warning">Choose two different recordings on the Recordings page, then Compare.</Alert>
      </section>
    );
  }
  const deps = { vault: portal.vault, serviceUrl: portal.config.serviceUrl };
  let loaded;
  try {
    loaded = await Promise.all(asked.map((id) => teamRecording(deps, actor, team.id, id, undefined)));
  } catch (err) {
    const e = asDomainError(err);
    if (!e) throw err;
    return (
      <section className="stack" aria-labelledby="compare-title">
        {head}
        <Alert tone="error">
          {e.code === 'not_found' ? 'One of these recordings is not one of this team’s, or has expired.' : e.message}
        </Alert>
      </section>
    );
  }
  // Run A is the earlier of the two, whichever was ticked first.
  loaded.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const runs = loaded.map((r, i): Run => ({
    id: r.id,
    label: `Run ${i === 0 ? 'A' : 'B'}: ${r.keyName}, ${formatDate(Date.parse(r.startedAt))}`,
  }));
  const comparison = compare(sideOf(loaded[0]!.events), sideOf(loaded[1]!.events));
  return (
    <section className="stack" aria-labelledby="compare-title">
      {head}
      <ComparisonView teamId={team.id} runs={[runs[0]!, runs[1]!]} comparison={comparison} />
    </section>
  );
}
