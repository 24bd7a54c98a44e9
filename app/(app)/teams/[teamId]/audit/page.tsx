import type { Metadata } from 'next';
import { auditLog } from '../../../../../lib/portal/vault.ts';
import { formatDate } from '../../../../_lib/format.ts';
import { canManage, requireTeam } from '../../../../_lib/team-page.ts';
import { Alert } from '../../../../_ui/alert.tsx';
import { EmptyState } from '../../../../_ui/empty-state.tsx';

export const metadata: Metadata = { title: 'Audit log' };

const ACTIONS: Record<string, string> = {
  'team.created': 'Created the team', 'team.renamed': 'Renamed the team',
  'key.created': 'Created key', 'key.added': 'Added existing key', 'key.renamed': 'Renamed key', 'key.default_set': 'Made default key', 'key.revoked': 'Revoked key',
  'invite.created': 'Created an invitation', 'invite.revoked': 'Withdrew an invitation',
  'member.joined': 'Joined', 'member.left': 'Left', 'member.removed': 'Removed member', 'member.role_changed': 'Changed role of',
};

export default async function AuditPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor, team } = await requireTeam(teamId);
  if (!canManage(team)) return <Alert tone="warning">Only owners and admins of this team can see its audit log.</Alert>;
  const events = await auditLog(portal.data, actor, team.id);
  return (
    <section className="stack" aria-labelledby="audit-title">
      <div><h2 id="audit-title">Audit log</h2><p className="muted">Key and membership events in this team, newest first.</p></div>
      <div className="card">
        {events.length === 0 ? (
          <EmptyState icon="≡" title="Nothing recorded yet">Key and membership changes show up here.</EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Audit log">
              <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th></tr></thead>
              <tbody>
                {events.map((e) => (
                  <tr key={e.id} data-action={e.action}>
                    <td>{formatDate(e.createdAt)}</td>
                    <td>{e.actorEmail ?? 'someone removed'}</td>
                    <td>{ACTIONS[e.action] ?? e.action} <strong>{e.subject}</strong>
                      {e.action === 'member.role_changed' && <span className="muted"> ({String(e.detail.from)} → {String(e.detail.to)})</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
