import type { FoundEvent } from '#portal/inspector/recordings.ts';
import { EVENT_KINDS } from '#shared/protocol/recording-search.ts';
import { clipAddress } from '#app/_lib/address.ts';
import { formatDate } from '#app/_lib/format.ts';
import { buttonClass } from '#app/_ui/button.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Link } from '#app/_ui/link.tsx';
import { Table } from '#app/_ui/table.tsx';
import './recordings.css';

/** The search form's fields, as the page's address carries them (shareable within the team). */
export type EventSearchFields = { q?: string; type?: string; status?: string; host?: string; within?: string };
export const WITHIN = { '1d': 1, '7d': 7, '31d': 31 } as const;

const KIND_LABELS: Record<(typeof EVENT_KINDS)[number], string> = {
  navigation: 'Pages opened',
  request: 'Requests',
  console: 'Console',
  error: 'Uncaught errors',
  dialog: 'Dialogs',
};

/** The service's query for the fields (`within` becomes `since`); null when nothing is asked. */
export function eventQueryOf(f: EventSearchFields, now = Date.now()): URLSearchParams | null {
  const query = new URLSearchParams();
  for (const name of ['q', 'type', 'status', 'host'] as const) {
    const value = f[name]?.trim();
    if (value) query.set(name, value);
  }
  if ([...query.keys()].length === 0) return null;
  const days = WITHIN[(f.within ?? '7d') as keyof typeof WITHIN] ?? 7;
  query.set('since', new Date(now - days * 86_400_000).toISOString());
  return query;
}

/** Find events across the team's recordings, "which runs hit a 500 from this host this week". */
export function EventSearchForm({ teamId, fields }: { teamId: string; fields: EventSearchFields }) {
  return (
    <form className="toolbar" method="get" aria-label="Find events across recordings" action={`/teams/${teamId}/recordings`}>
      <label className="field-inline">
        Words <input className="input" name="q" defaultValue={fields.q ?? ''} maxLength={200} placeholder="timeout, /api/orders" />
      </label>
      <label className="field-inline">
        Kind{' '}
        <select className="select" name="type" defaultValue={fields.type ?? ''}>
          <option value="">Any</option>
          {EVENT_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      <label className="field-inline">
        Status <input className="input" name="status" defaultValue={fields.status ?? ''} size={6} placeholder="5xx, 404, failed" />
      </label>
      <label className="field-inline">
        Host <input className="input" name="host" defaultValue={fields.host ?? ''} placeholder="example.com" />
      </label>
      <label className="field-inline">
        Within{' '}
        <select className="select" name="within" defaultValue={fields.within ?? '7d'}>
          <option value="1d">the last day</option>
          <option value="7d">the last 7 days</option>
          <option value="31d">the last 31 days</option>
        </select>
      </label>
      <button type="submit" className={buttonClass('secondary', 'sm')}>
        Find
      </button>
    </form>
  );
}

/** What the search found: each event with its session, opening the inspector at that moment. */
export function EventSearchResults({
  teamId,
  matches,
  sessions,
  truncated,
}: {
  teamId: string;
  matches: FoundEvent[];
  sessions: number;
  truncated: boolean;
}) {
  if (matches.length === 0) {
    return (
      <div className="card">
        <EmptyState icon="log" title="No events match">
          {sessions} recording{sessions === 1 ? '' : 's'} searched. Try fewer words, another kind, or a longer time.
        </EmptyState>
      </div>
    );
  }
  return (
    <>
      <p className="muted" role="status">
        {matches.length} event{matches.length === 1 ? '' : 's'} in {sessions} recording{sessions === 1 ? '' : 's'}
        {truncated ? ', newest first; there are more: narrow the search to see them' : ''}.
      </p>
      <Table label="Events found" className="card" columns={['When', 'Event', 'Session']}>
        {matches.map((m) => (
          <tr key={`${m.browser} ${m.event.seq}`} data-browser-id={m.browser}>
            <td>{formatDate(m.at)}</td>
            <td className="clip-cell" title={clipAddress(describe(m), 2000)}>
              <Link href={`/teams/${teamId}/recordings/${m.browser}?t=${Math.round(m.at - m.browserStartedAt)}`}>
                {clipAddress(describe(m))}
              </Link>
            </td>
            <td className="muted">
              {m.keyName} · started {formatDate(m.browserStartedAt)}
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}

function describe({ event: e }: FoundEvent): string {
  switch (e.type) {
    case 'request':
      return `${String(e.method)} ${String(e.url)} → ${e.failed ? String(e.failed).replace(/^net::/, '') : String(e.status)}`;
    case 'navigation':
      return `Opened ${String(e.url)}`;
    case 'console':
      return `console.${String(e.level)}: ${String(e.text)}`;
    case 'error':
      return `Uncaught: ${String(e.text)}`;
    case 'dialog':
      return `${String(e.dialogType)}: ${String(e.message)}`;
    default:
      return e.type;
  }
}
