import type { Metadata } from 'next';
import { requireSignedIn } from '#app/_lib/page-guard.ts';
import { DeleteAccount, PasswordForm, ProfileForm, SignOutEverywhere } from './account-client.tsx';

export const metadata: Metadata = { title: 'Your account' };

export default async function AccountPage() {
  const { portal, user } = await requireSignedIn();
  const stored = await portal.data.userById(user.id);
  const hasPassword = Boolean(stored?.passwordHash);
  return (
    <div className="stack">
      <h1>Your account</h1>
      <section className="card card-body stack" aria-labelledby="profile-title">
        <h2 id="profile-title">Name and email</h2>
        <ProfileForm name={user.name} email={user.email} hasPassword={hasPassword} />
      </section>
      <section className="card card-body stack" aria-labelledby="password-title">
        <h2 id="password-title">{hasPassword ? 'Password' : 'Set a password'}</h2>
        <p className="muted">
          {hasPassword
            ? 'A new password signs you out everywhere else.'
            : 'You sign in with a provider. A password lets you sign in with your email too.'}
        </p>
        <PasswordForm email={user.email} hasPassword={hasPassword} />
      </section>
      <section className="card card-body stack" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <p className="muted">Signed in on a computer you no longer use? End every session of your account, this one included.</p>
        <SignOutEverywhere />
      </section>
      <section className="card card-body stack danger-zone" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete account</h2>
        <p className="muted">
          Teams only you are in are deleted with your account, with their keys and history. You leave every other team. If you are the only
          owner of a team with other members, make someone else an owner first.
        </p>
        <DeleteAccount email={user.email} hasPassword={hasPassword} />
      </section>
    </div>
  );
}
