import type { Metadata } from 'next';
import { listInvites } from '#portal/teams/invites.ts';
import { listMembers, roleLabel } from '#portal/teams/teams.ts';
import { formatDate } from '#app/_lib/format.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { Badge } from '#app/_ui/badge.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { InviteButton, MemberActions, RevokeInviteButton } from './members-client.tsx';
import { Table } from '#app/_ui/table.tsx';

export const metadata: Metadata = { title: 'Members' };

export default async function MembersPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor, team, user } = await requireTeam(teamId);
  const manage = canManage(team);
  const [members, invites] = await Promise.all([
    listMembers(portal.data, actor, team.id),
    manage ? listInvites(portal.data, actor, team.id) : [],
  ]);
  return (
    <div className="stack">
      <section className="stack" aria-labelledby="members-title">
        <div className="page-head">
          <div>
            <h2 id="members-title">Members</h2>
            <p>Owners and admins manage members and keys. Members use the team&apos;s keys.</p>
          </div>
          {manage && <InviteButton teamId={team.id} />}
        </div>
        <Table label="Members" className="card" columns={['Person', 'Role', 'Joined', { hidden: 'Actions' }]}>
          {members.map((m) => (
            <tr key={m.userId} data-member={m.email}>
              <td>
                <strong>{m.name}</strong>
                {m.userId === user.id && (
                  <>
                    {' '}
                    <Badge>You</Badge>
                  </>
                )}
                <div className="muted" style={{ fontSize: '0.85rem' }}>
                  {m.email}
                </div>
              </td>
              <td>{roleLabel(m.role)}</td>
              <td>{formatDate(m.createdAt)}</td>
              <td style={{ textAlign: 'right' }}>
                <MemberActions
                  teamId={team.id}
                  userId={m.userId}
                  email={m.email}
                  role={m.role}
                  self={m.userId === user.id}
                  myRole={team.role}
                />
              </td>
            </tr>
          ))}
        </Table>
      </section>
      {manage && (
        <section className="stack" aria-labelledby="invites-title">
          <h2 id="invites-title">Pending invitations</h2>
          <div className="card">
            {invites.length === 0 ? (
              <EmptyState icon="mail" title="No pending invitations">
                Invite someone with a link. Each link works once and expires.
              </EmptyState>
            ) : (
              <Table label="Pending invitations" columns={['Role', 'Created', 'Expires', { hidden: 'Actions' }]}>
                {invites.map((i) => (
                  <tr key={i.id}>
                    <td>{roleLabel(i.role)}</td>
                    <td>{formatDate(i.createdAt)}</td>
                    <td>{formatDate(i.expiresAt)}</td>
                    <td style={{ textAlign: 'right' }}>
                      <RevokeInviteButton teamId={team.id} inviteId={i.id} />
                    </td>
                  </tr>
                ))}
              </Table>
            )}
          </div>
        </section>
      )}
    </div>
  );
}
