import type { Metadata } from 'next';
import { notFound } from 'next/navigation.js';
import { teamRecordings } from '#portal/inspector/recordings.ts';
import { clipAddress } from '#app/_lib/address.ts';
import { endReasonText } from '#app/_lib/end-reasons.ts';
import { formatDate } from '#app/_lib/format.ts';
import { requireTeam } from '#app/_lib/team-page.ts';
import { Inspector } from '#app/_inspector/inspector.tsx';
import { Link } from '#app/_ui/link.tsx';
import '../recordings.css';

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
  const { portal, actor, team } = await requireTeam(teamId);
  if (!BROWSER_ID.test(browserId)) notFound();
  // Named as the list names it: its page, when and with which key it started, how it ended.
  const listed = (await teamRecordings({ vault: portal.vault, serviceUrl: portal.config.serviceUrl }, actor, team.id).catch(() => [])).find(
    (r) => r.id === browserId,
  );
  const t = (await searchParams).t;
  const startAt = typeof t === 'string' && /^\d{1,10}$/.test(t) ? Number(t) : 0;
  return (
    <section className="stack" aria-labelledby="inspector-title">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <div className="clip-head">
          <h2 id="inspector-title">
            {listed ? clipAddress(listed.title || listed.url || 'A page without a title', 120) : 'Recorded session'}
          </h2>
          <p className="muted">
            {listed
              ? `Started ${formatDate(listed.startedAt)} with the key “${listed.keyName}” · ${listed.live ? 'Live' : endReasonText(listed.endReason)}`
              : `Session ${browserId.slice(0, 11)}…`}
          </p>
        </div>
        <Link href={`/teams/${team.id}/recordings`}>All recordings</Link>
      </div>
      <Inspector teamId={team.id} browserId={browserId} startAt={startAt} />
    </section>
  );
}
