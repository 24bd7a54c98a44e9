import type { Metadata } from 'next';
import { resetTokenSchema } from '#portal/schemas.ts';
import { AuthShell } from '#app/_auth/auth-shell.tsx';
import { Alert } from '#app/_ui/alert.tsx';
import { Link } from '#app/_ui/link.tsx';
import { ResetForm } from './reset-form.tsx';

export const metadata: Metadata = { title: 'Set a new password', referrer: 'no-referrer' };

/** An operator's one-time reset link (`npm run portal:users -- reset-link EMAIL`). */
export default async function ResetPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const valid = resetTokenSchema.safeParse(token).success;
  return (
    <AuthShell
      title="Set a new password"
      subtitle="Choose a new password for your account. Every session of the account ends when you save it."
      footer={
        <>
          Remembered it? <Link href="/signin">Sign in</Link>
        </>
      }
    >
      {valid ? (
        <ResetForm token={token} />
      ) : (
        <Alert tone="error">This reset link is not complete. Copy the whole link from the operator, or ask for a new one.</Alert>
      )}
    </AuthShell>
  );
}
