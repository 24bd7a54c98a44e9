import type { Metadata } from 'next';
import { AUDIT_KIND_LABELS, AUDIT_KINDS, actionLabel, auditLog, describeDetail, type AuditPage } from '#portal/teams/audit.ts';
import { asDomainError } from '#portal/errors.ts';
import { formatDate } from '#app/_lib/format.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { buttonClass } from '#app/_ui/button.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Table } from '#app/_ui/table.tsx';

export const metadata: Metadata = { title: 'Audit log' };

type Search = Record<string, string | string[] | undefined>;

/** Only the filter's own fields, as single values: anything else is ignored, never an error page. */
function filterOf(sp: Search): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['kind', 'actor', 'before']) {
    const v = sp[name];
    if (typeof v === 'string' && v) out[name] = v;
  }
  return out;
}

const query = (params: Record<string, string>): string => {
  const q = new URLSearchParams(params).toString();
  return q ? `?${q}` : '';
};

export default async function AuditLogPage({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string }>;
  searchParams: Promise<Search>;
}) {
  const { teamId } = await params;
  const { portal, actor, team } = await requireTeam(teamId);
  if (!canManage(team)) return <Alert tone="warning">Only owners and admins of this team can see its audit log.</Alert>;
  const filter = filterOf(await searchParams);
  let page: AuditPage;
  try {
    page = await auditLog(portal.data, actor, team.id, filter);
  } catch (err) {
    if (asDomainError(err)?.code !== 'invalid') throw err;
    return (
      <Alert tone="warning">
        That filter is not valid. <a href={`/teams/${team.id}/audit`}>Show the whole log</a>.
      </Alert>
    );
  }
  const { before: _page, ...kept } = filter;
  const filtered = Boolean(kept.kind || kept.actor);
  return (
    <section className="stack" aria-labelledby="audit-title">
      <div>
        <h2 id="audit-title">Audit log</h2>
        <p className="muted">Everything done in this team: keys, members, browsers and who had control, newest first.</p>
      </div>
      <form className="toolbar" method="get" aria-label="Filter the audit log">
        <label className="field-inline">
          Kind{' '}
          <select className="select" name="kind" defaultValue={kept.kind ?? ''}>
            <option value="">All kinds</option>
            {AUDIT_KINDS.map((k) => (
              <option key={k} value={k}>
                {AUDIT_KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          Person{' '}
          <select className="select" name="actor" defaultValue={kept.actor ?? ''}>
            <option value="">Everyone</option>
            {page.actors.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className={buttonClass('secondary', 'sm')}>
          Filter
        </button>
        {filtered && (
          <a className={buttonClass('ghost', 'sm')} href={`/teams/${team.id}/audit`}>
            Clear
          </a>
        )}
        <a className={buttonClass('secondary', 'sm')} href={`/api/teams/${team.id}/audit/csv${query(kept)}`} download>
          Download CSV
        </a>
      </form>
      <div className="card">
        {page.events.length === 0 ? (
          <EmptyState icon="log" title={filtered ? 'Nothing matches this filter' : 'Nothing recorded yet'}>
            {filtered ? 'Try another kind or person.' : 'Keys, members, browsers and control handovers show up here.'}
          </EmptyState>
        ) : (
          <Table label="Audit log" columns={['When', 'Who', 'What']}>
            {page.events.map((e) => {
              const detail = describeDetail(e);
              return (
                <tr key={e.id} data-action={e.action}>
                  <td>{formatDate(e.createdAt)}</td>
                  <td>{e.actorLabel ?? (e.actorId === null && e.action === 'browser.ended' ? 'Periscope' : 'someone removed')}</td>
                  <td>
                    {actionLabel(e.action)} <strong>{e.subject}</strong>
                    {detail && <span className="muted"> ({detail})</span>}
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
      </div>
      {page.next && (
        <a className={buttonClass('secondary', 'sm')} href={`/teams/${team.id}/audit${query({ ...kept, before: page.next })}`}>
          Older events
        </a>
      )}
    </section>
  );
}
