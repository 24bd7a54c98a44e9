import type { Metadata } from 'next';
import { redirect } from 'next/navigation.js';
import { Link } from '../_ui/link.tsx';
import { oauthProviders } from '#portal/accounts/auth.ts';
import { safeCallback } from '#portal/accounts/public-paths.ts';
import { portal } from '#portal/runtime.ts';
import { signedIn } from '../_lib/session.ts';
import { AuthShell } from '../_auth/auth-shell.tsx';
import { invitationFor } from '../_auth/invitation.ts';
import { OAuthButtons } from '../_auth/oauth-buttons.tsx';
import { Alert } from '../_ui/alert.tsx';
import { SignUpForm } from './signup-form.tsx';

export const metadata: Metadata = { title: 'Create account' };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const callbackUrl = safeCallback(typeof sp.callbackUrl === 'string' ? sp.callbackUrl : null);
  if (await signedIn()) redirect(callbackUrl);
  const p = portal();
  const invitation = await invitationFor(p, callbackUrl);
  return (
    <AuthShell
      title="Create your account"
      subtitle={
        invitation
          ? `Then you join ${invitation.teamName}: ${invitation.invitedBy} invited you.`
          : 'You get a personal team right away; invite others whenever you like.'
      }
      footer={
        <>
          Already have an account?{' '}
          <Link href={`/signin${callbackUrl !== '/' ? `?callbackUrl=${encodeURIComponent(callbackUrl)}` : ''}`}>Sign in</Link>
        </>
      }
    >
      {p.config.signupEnabled ? (
        <>
          <OAuthButtons providers={oauthProviders(p)} callbackUrl={callbackUrl} />
          <SignUpForm callbackUrl={callbackUrl} />
        </>
      ) : (
        <Alert tone="warning">Sign-up is switched off on this deployment. Ask an administrator for an invitation.</Alert>
      )}
    </AuthShell>
  );
}
