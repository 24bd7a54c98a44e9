import type { Metadata } from 'next';
import { teamRecordings, type TeamRecording } from '#portal/inspector/recordings.ts';
import { asDomainError } from '#portal/errors.ts';
import { duration, formatDate } from '#app/_lib/format.ts';
import { requireTeam } from '#app/_lib/team-page.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Link } from '#app/_ui/link.tsx';
import { Table } from '#app/_ui/table.tsx';

export const metadata: Metadata = { title: 'Recordings' };

/** Every recorded session of the team's keys, newest first, each opening in the inspector. */
export default async function RecordingsPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor } = await requireTeam(teamId);
  let recordings: TeamRecording[] = [];
  let problem: string | null = null;
  try {
    recordings = await teamRecordings({ vault: portal.vault, serviceUrl: portal.config.serviceUrl }, actor, teamId);
  } catch (err) {
    problem = asDomainError(err)?.message ?? 'The browser service could not be asked for recordings.';
  }
  const now = Date.now();
  return (
    <section className="stack" aria-labelledby="recordings-title">
      <h2 id="recordings-title">Recordings</h2>
      {problem && <Alert tone="error">{problem}</Alert>}
      {recordings.length === 0 ? (
        <div className="card">
          <EmptyState icon="browser" title="No recordings yet">
            Turn recording on in this team&apos;s Settings (or, for a key from another deployment, with{' '}
            <code>npm run keys -- record ID on</code> on its service). Every browser started with the team&apos;s keys afterwards, from code
            or from this portal, is listed here.
          </EmptyState>
        </div>
      ) : (
        <Table label="Recorded sessions" className="card" columns={['Session', 'Key', 'Started', 'Length', 'State']}>
          {recordings.map((r) => (
            <tr key={r.id} data-browser-id={r.id}>
              <td className="dash-page">
                <Link href={`/teams/${teamId}/recordings/${r.id}`}>{r.title || r.url || r.id}</Link>
                <span className="muted">{r.url}</span>
              </td>
              <td>{r.keyName}</td>
              <td>{formatDate(r.startedAt)}</td>
              <td>{duration((r.endedAt ?? now) - r.startedAt)}</td>
              <td>{r.live ? <span className="badge badge-success">Live</span> : (r.endReason ?? 'ended')}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
