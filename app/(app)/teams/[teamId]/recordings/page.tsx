import type { Metadata } from 'next';
import { searchTeamRecordings, teamRecordings, type FoundEvent, type TeamRecording } from '#portal/inspector/recordings.ts';
import { asDomainError } from '#portal/errors.ts';
import { clipAddress } from '#app/_lib/address.ts';
import { endReasonText } from '#app/_lib/end-reasons.ts';
import { duration, formatDate } from '#app/_lib/format.ts';
import { requireTeam } from '#app/_lib/team-page.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Link } from '#app/_ui/link.tsx';
import { Table } from '#app/_ui/table.tsx';
import { buttonClass } from '#app/_ui/button.tsx';
import './recordings.css';
import { EventSearchForm, EventSearchResults, eventQueryOf, type EventSearchFields } from './event-search.tsx';

export const metadata: Metadata = { title: 'Recordings' };

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * Every recorded session of the team's keys, newest first, each opening in the inspector; and a
 * search of their events across sessions, whose answers open the inspector at their moment.
 */
export default async function RecordingsPage({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { teamId } = await params;
  const raw = await searchParams;
  const fields: EventSearchFields = {
    q: one(raw.q),
    type: one(raw.type),
    status: one(raw.status),
    host: one(raw.host),
    within: one(raw.within),
  };
  const { portal, actor } = await requireTeam(teamId);
  const deps = { vault: portal.vault, serviceUrl: portal.config.serviceUrl };
  let recordings: TeamRecording[] = [];
  let problem: string | null = null;
  let found: { matches: FoundEvent[]; sessions: number; truncated: boolean } | null = null;
  let searchProblem: string | null = null;
  const query = eventQueryOf(fields);
  try {
    recordings = await teamRecordings({ ...deps, browsers: portal.browsers }, actor, teamId);
  } catch (err) {
    problem = asDomainError(err)?.message ?? 'The browser service could not be asked for recordings.';
  }
  if (query) {
    try {
      found = await searchTeamRecordings(deps, actor, teamId, query);
    } catch (err) {
      const e = asDomainError(err);
      const issues = e?.issues ?? [];
      searchProblem = issues.length ? issues.map((i) => `${i.field} ${i.message}`).join('; ') : (e?.message ?? 'The search did not work.');
    }
  }
  const now = Date.now();
  return (
    <section className="stack" aria-labelledby="recordings-title">
      <h2 id="recordings-title">Recordings</h2>
      {problem && <Alert tone="error">{problem}</Alert>}
      {recordings.length > 0 && <EventSearchForm teamId={teamId} fields={fields} />}
      {searchProblem && <Alert tone="error">{searchProblem}</Alert>}
      {found && <EventSearchResults teamId={teamId} {...found} />}
      {recordings.length === 0 ? (
        <div className="card">
          <EmptyState icon="browser" title="No recordings yet">
            Turn recording on in this team&apos;s Settings (or, for a key from another deployment, with{' '}
            <code>npm run keys -- record ID on</code> on its service). Every browser started with the team&apos;s keys afterwards, from code
            or from this portal, is listed here.
          </EmptyState>
        </div>
      ) : (
        <form className="stack-sm" method="get" action={`/teams/${teamId}/recordings/compare`} aria-label="Compare two recordings">
          <Table label="Recorded sessions" className="card" columns={['Compare', 'Session', 'Key', 'Started', 'Length', 'State']}>
            {recordings.map((r) => (
              <tr key={r.id} data-browser-id={r.id}>
                <td>
                  <input
                    type="checkbox"
                    name="run"
                    value={r.id}
                    aria-label={`Compare ${clipAddress(r.name || r.title || r.url || r.id, 80)}, started ${formatDate(r.startedAt)}`}
                  />
                </td>
                {/* A browser the portal started goes by the name its starter gave it; a script's by its page. */}
                <td className="clip-cell" title={clipAddress(r.url, 2000)}>
                  <Link href={`/teams/${teamId}/recordings/${r.id}`}>{clipAddress(r.name || r.title || r.url || r.id)}</Link>
                  <span className="muted">{clipAddress(r.url)}</span>
                </td>
                <td>{r.keyName}</td>
                <td>{formatDate(r.startedAt)}</td>
                <td>{duration((r.endedAt ?? now) - r.startedAt)}</td>
                <td>{r.live ? <span className="badge badge-success">Live</span> : endReasonText(r.endReason)}</td>
              </tr>
            ))}
          </Table>
          <div>
            <button type="submit" className={buttonClass('secondary', 'sm')}>
              Compare the two chosen
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
