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
import { SignInForm } from './signin-form.tsx';

export const metadata: Metadata = { title: 'Sign in' };

// next-auth's error codes for its own failures; our own messages arrive as text.
const KNOWN: Record<string, string> = {
  OAuthSignin: 'Could not start sign-in with that provider. Try again.',
  OAuthCallback: 'The provider sign-in did not complete. Try again.',
  OAuthAccountNotLinked: 'This email is linked to another sign-in method.',
  Callback: 'Sign-in did not complete. Try again.',
  AccessDenied: 'Sign-in was refused.',
  CredentialsSignin: 'Wrong email or password.',
  SessionRequired: 'Sign in to continue.',
  Configuration: 'Sign-in is misconfigured on the server.',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const callbackUrl = safeCallback(typeof sp.callbackUrl === 'string' ? sp.callbackUrl : null);
  if (await signedIn()) redirect(callbackUrl);
  const rawError = typeof sp.error === 'string' ? sp.error : null;
  const error = rawError ? (KNOWN[rawError] ?? rawError.slice(0, 200)) : null;
  const p = portal();
  const invitation = await invitationFor(p, callbackUrl);
  return (
    <AuthShell
      title="Sign in"
      subtitle={
        invitation
          ? `Sign in, then join ${invitation.teamName}: ${invitation.invitedBy} invited you.`
          : 'Welcome back. Sign in to manage your teams and API keys.'
      }
      footer={
        p.config.signupEnabled ? (
          <>
            New here?{' '}
            <Link href={`/signup${callbackUrl !== '/' ? `?callbackUrl=${encodeURIComponent(callbackUrl)}` : ''}`}>Create an account</Link>
          </>
        ) : (
          <>Accounts are created by invitation.</>
        )
      }
    >
      <OAuthButtons providers={oauthProviders(p)} callbackUrl={callbackUrl} />
      <SignInForm callbackUrl={callbackUrl} initialError={error} />
    </AuthShell>
  );
}
