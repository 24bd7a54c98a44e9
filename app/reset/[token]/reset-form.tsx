'use client';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { PASSWORD_MIN_LENGTH } from '#portal/crypto/password-rules.ts';
import { resetFormSchema } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { useForm } from '#app/_lib/use-form.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';

export function ResetForm({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useForm(resetFormSchema);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = form.submit({ password });
    if (!parsed) return;
    setBusy(true);
    try {
      const { email } = await api<{ email: string }>('POST', '/api/reset', { token, password: parsed.password });
      const result = await signIn('credentials', { email, password: parsed.password, redirect: false });
      window.location.assign(result?.ok && !result.error ? '/' : '/signin');
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && Object.keys(err.fields).length) form.setErrors(err.fields);
      setError((err as Error).message);
    }
  }

  return (
    <form className="stack" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Set a new password">
      {error && <Alert tone="error">{error}</Alert>}
      <Field
        id="password"
        label="New password"
        type="password"
        autoComplete="new-password"
        value={password}
        error={form.errors.password || undefined}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        onType={(value) => {
          setPassword(value);
          form.change({ password: value }, 'password');
        }}
        onBlur={() => form.blur({ password }, 'password')}
      />
      <Button type="submit" variant="primary" block busy={busy}>
        Save password and sign in
      </Button>
    </form>
  );
}
