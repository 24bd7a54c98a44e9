import type { Metadata } from 'next';
import { Link } from '#app/_ui/link.tsx';
import { previewInvite } from '#portal/teams/invites.ts';
import { roleLabel } from '#portal/teams/teams.ts';
import { requireSignedIn } from '#app/_lib/page-guard.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { AcceptInvite } from './accept-invite.tsx';

export const metadata: Metadata = { title: 'Invitation' };

const STATUS: Record<string, string> = {
  used: 'This invitation has already been used.',
  expired: 'This invitation has expired. Ask for a new one.',
  revoked: 'This invitation was withdrawn.',
  member: 'You are already a member of this team.',
};

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const { portal, actor, user } = await requireSignedIn();
  const preview = await previewInvite(portal.data, actor, token).catch(() => null);
  return (
    <section className="card" style={{ maxWidth: '32rem', margin: '0 auto', width: '100%' }} aria-labelledby="invite-title">
      <div className="card-header">
        <h1 id="invite-title">Team invitation</h1>
      </div>
      <div className="card-body stack">
        {!preview ? (
          <Alert tone="error">This invitation link is not valid.</Alert>
        ) : preview.status === 'open' ? (
          <>
            <p>
              You are invited to join <strong>{preview.teamName}</strong> as {roleLabel(preview.role).toLowerCase()}.
            </p>
            <p className="muted">Signed in as {user.email}.</p>
            <AcceptInvite token={token} teamName={preview.teamName} />
          </>
        ) : (
          <Alert tone="warning">{STATUS[preview.status]}</Alert>
        )}
        <Link href="/">Go to your teams</Link>
      </div>
    </section>
  );
}
