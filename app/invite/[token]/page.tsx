import type { Metadata } from 'next';
import { previewInvite, type InvitePreview } from '#portal/teams/invites.ts';
import { roleLabel } from '#portal/teams/teams.ts';
import { portal } from '#portal/runtime.ts';
import { signedIn } from '#app/_lib/session.ts';
import { AuthShell } from '#app/_auth/auth-shell.tsx';
import { Alert } from '#app/_ui/alert.tsx';
import { Link } from '#app/_ui/link.tsx';
import { AcceptInvite } from './accept-invite.tsx';

export const metadata: Metadata = { title: 'Invitation' };

const STATUS: Record<Exclude<InvitePreview['status'], 'open'>, string> = {
  used: 'This invitation has already been used.',
  expired: 'This invitation has expired. Ask for a new one.',
  revoked: 'This invitation was withdrawn.',
  member: 'You are already a member of this team.',
};

/**
 * Where an invitation link lands, signed in or not: it names the team, who invited and the role,
 * and lets a newcomer create an account or sign in from here, coming back to join.
 */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const session = await signedIn();
  const p = session?.portal ?? portal();
  const preview = await previewInvite(p.data, session?.actor ?? null, token).catch(() => null);
  const here = `/invite/${encodeURIComponent(token)}`;
  const back = `?callbackUrl=${encodeURIComponent(here)}`;
  const invitation = preview
    ? `${preview.invitedBy} invited you to join ${preview.teamName} as ${roleLabel(preview.role).toLowerCase()}.`
    : 'This invitation link is not valid.';
  return (
    <AuthShell
      title={preview ? `Join ${preview.teamName}` : 'Team invitation'}
      subtitle={preview ? invitation : 'Ask whoever sent it for a new link.'}
      footer={session ? <Link href="/">Go to your teams</Link> : <Link href="/signin">Sign in without joining</Link>}
    >
      {!preview ? (
        <Alert tone="error">This invitation link is not valid.</Alert>
      ) : preview.status !== 'open' ? (
        <Alert tone="warning">{STATUS[preview.status]}</Alert>
      ) : session ? (
        <div className="stack">
          <p className="muted">Signed in as {session.user.email}.</p>
          <AcceptInvite token={token} teamName={preview.teamName} />
        </div>
      ) : (
        <div className="stack">
          {p.config.signupEnabled && (
            <Link className="btn btn-primary btn-block" href={`/signup${back}`}>
              Create an account to join
            </Link>
          )}
          <Link className="btn btn-block" href={`/signin${back}`}>
            I have an account: sign in to join
          </Link>
        </div>
      )}
    </AuthShell>
  );
}
