import type { Metadata } from 'next';
import { teamProfiles, type TeamProfile } from '#portal/keys/profiles.ts';
import { asDomainError } from '#portal/errors.ts';
import { formatBytes, formatDate } from '#app/_lib/format.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Badge } from '#app/_ui/badge.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Table } from '#app/_ui/table.tsx';
import { DeleteProfile } from './delete-profile.tsx';

export const metadata: Metadata = { title: 'Profiles' };

/**
 * The saved browser profiles of the team's keys (decision 0109): what scripts start from with
 * `profile=NAME`, how big each is, when it was last saved, and whether a browser saves into it
 * now. Owners and admins may delete one.
 */
export default async function ProfilesPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor, team } = await requireTeam(teamId);
  let profiles: TeamProfile[] = [];
  let unread: string[] = [];
  let problem: string | null = null;
  try {
    ({ profiles, unread } = await teamProfiles({ vault: portal.vault, serviceUrl: portal.config.serviceUrl }, actor, team.id));
  } catch (err) {
    problem = asDomainError(err)?.message ?? 'The browser service could not be asked for profiles.';
  }
  const manage = canManage(team);
  return (
    <section className="stack" aria-labelledby="profiles-title">
      <div className="page-head">
        <div>
          <h2 id="profiles-title">Profiles</h2>
          <p>
            Saved browser state (cookies, local storage, IndexedDB) of the team&apos;s keys. A browser started with{' '}
            <code>profile=NAME</code> starts logged in where the profile was; with <code>persist=1</code> it saves back when it ends.
          </p>
        </div>
      </div>
      {problem && <Alert tone="error">{problem}</Alert>}
      {unread.length > 0 && (
        <Alert tone="warning">
          The browser service did not list the profiles of {unread.map((k) => `“${k}”`).join(', ')}: the key is revoked there, or the
          service could not be reached.
        </Alert>
      )}
      <div className="card table-tight">
        {profiles.length === 0 ? (
          <EmptyState icon="browser" title="No saved profiles yet">
            A profile is made when a browser started with <code>?profile=NAME&amp;persist=1</code> and one of this team&apos;s keys ends.
            Log in to a site in it once, and every later browser started with <code>?profile=NAME</code> starts logged in.
          </EmptyState>
        ) : (
          <Table
            label="Saved profiles"
            columns={[
              'Profile',
              { label: 'Key', className: 'hide-sm' },
              { label: 'Size', className: 'hide-sm' },
              { label: 'Last saved', className: 'hide-sm' },
              'State',
              { hidden: 'Actions' },
            ]}
          >
            {profiles.map((p) => (
              <tr key={`${p.keyId} ${p.name}`} data-profile={p.name} data-key-id={p.keyId}>
                <td>
                  <strong style={{ overflowWrap: 'break-word' }}>{p.name}</strong>
                  <span className="fold-sm muted" style={{ fontSize: '0.8rem' }}>
                    {p.keyName} · {formatBytes(p.bytes)} · saved {formatDate(p.updatedAt)}
                  </span>
                </td>
                <td className="hide-sm">{p.keyName}</td>
                <td className="hide-sm">{formatBytes(p.bytes)}</td>
                <td className="hide-sm">{formatDate(p.updatedAt)}</td>
                <td style={{ whiteSpace: 'nowrap' }}>{p.inUse ? <Badge tone="accent">In use</Badge> : <Badge>Not in use</Badge>}</td>
                <td>
                  <div className="row" style={{ justifyContent: 'flex-end' }}>
                    {manage && <DeleteProfile teamId={team.id} keyId={p.keyId} keyName={p.keyName} name={p.name} inUse={p.inUse} />}
                  </div>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </div>
      {!manage && profiles.length > 0 && <p className="muted">Owners and admins of this team can delete a profile.</p>}
    </section>
  );
}
