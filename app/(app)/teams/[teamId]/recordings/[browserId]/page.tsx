import type { Metadata } from 'next';
import { notFound } from 'next/navigation.js';
import { requireTeam } from '#app/_lib/team-page.ts';
import { Inspector } from '#app/_inspector/inspector.tsx';
import { Link } from '#app/_ui/link.tsx';

export const metadata: Metadata = { title: 'Session inspector' };

const BROWSER_ID = /^br_[A-Za-z0-9_-]{32}$/;

/** The inspector of one recorded session; `?t=MS` opens it at that moment. */
export default async function InspectorPage({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string; browserId: string }>;
  searchParams: Promise<{ t?: string | string[] }>;
}) {
  const { teamId, browserId } = await params;
  const { team } = await requireTeam(teamId);
  if (!BROWSER_ID.test(browserId)) notFound();
  const t = (await searchParams).t;
  const startAt = typeof t === 'string' && /^\d{1,10}$/.test(t) ? Number(t) : 0;
  return (
    <section className="stack" aria-labelledby="inspector-title">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h2 id="inspector-title">Session {browserId.slice(0, 11)}…</h2>
        <Link href={`/teams/${team.id}/recordings`}>All recordings</Link>
      </div>
      <Inspector teamId={team.id} browserId={browserId} startAt={startAt} />
    </section>
  );
}
