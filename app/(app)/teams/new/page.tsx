import type { Metadata } from 'next';
import { requireSignedIn } from '#app/_lib/page-guard.ts';
import { NewTeamForm } from './new-team-form.tsx';

export const metadata: Metadata = { title: 'New team' };

export default async function NewTeamPage() {
  await requireSignedIn();
  return (
    <section className="card" style={{ maxWidth: '32rem' }} aria-labelledby="new-team-title">
      <div className="card-header">
        <h1 id="new-team-title">Create a team</h1>
      </div>
      <div className="card-body stack">
        <p className="muted">Teams share API keys. You become the team&apos;s owner and can invite others.</p>
        <NewTeamForm />
      </div>
    </section>
  );
}
