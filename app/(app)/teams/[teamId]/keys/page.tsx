import type { Metadata } from 'next';
import { listKeys } from '#portal/keys/vault.ts';
import { formatDate } from '#app/_lib/format.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { Badge } from '#app/_ui/badge.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { KeyActions, KeyTest, NewKeyButtons } from './keys-client.tsx';
import { Table } from '#app/_ui/table.tsx';

export const metadata: Metadata = { title: 'API keys' };

export default async function KeysPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = await params;
  const { portal, actor, team } = await requireTeam(teamId);
  const keys = await listKeys(portal.vault, actor, team.id);
  const manage = canManage(team);
  const canIssue = portal.vault.issuer.available;
  return (
    <section className="stack" aria-labelledby="keys-title">
      <div className="page-head">
        <div>
          <h2 id="keys-title">API keys</h2>
          <p>Keys for the browser and search API. The portal stores them encrypted and shows each one only once.</p>
        </div>
        {manage && <NewKeyButtons teamId={team.id} canIssue={canIssue} />}
      </div>
      <div className="card">
        {keys.length === 0 ? (
          <EmptyState icon="key" title="No API keys yet">
            {manage
              ? canIssue
                ? 'Create a key to start using cloud browsers and search, or add a key you already have.'
                : 'Add a key that your Periscope service issued.'
              : 'An owner or admin of this team can create one.'}
          </EmptyState>
        ) : (
          <Table label="API keys" columns={['Name', 'Key', 'Created', 'Last used', 'Status', { hidden: 'Actions' }]}>
            {keys.map((k) => (
              <tr key={k.id} className={k.revokedAt ? 'revoked' : undefined} data-key-id={k.id}>
                <td>
                  <div className="row" style={{ gap: 'var(--space-2)' }}>
                    <strong>{k.name}</strong>
                    {k.isDefault && <Badge tone="accent">Default</Badge>}
                  </div>
                  <span className="muted" style={{ fontSize: '0.8rem' }}>
                    {k.source === 'issued' ? 'Issued by this service' : 'Added existing key'}
                  </span>
                </td>
                <td>
                  <code aria-label={`Masked key ${k.hint}`}>{k.hint}</code>
                </td>
                <td>{formatDate(k.createdAt)}</td>
                <td>{formatDate(k.lastUsedAt)}</td>
                <td>{k.revokedAt ? <Badge tone="danger">Revoked</Badge> : <Badge tone="success">Active</Badge>}</td>
                <td style={{ textAlign: 'right' }}>
                  {!k.revokedAt && (
                    <div className="row" style={{ justifyContent: 'flex-end', gap: 'var(--space-2)' }}>
                      <KeyTest teamId={team.id} keyId={k.id} name={k.name} />
                      {manage && <KeyActions teamId={team.id} keyId={k.id} name={k.name} isDefault={k.isDefault} />}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </section>
  );
}
