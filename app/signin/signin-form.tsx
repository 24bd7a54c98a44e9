'use client';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { signInFormSchema } from '#portal/schemas.ts';
import { useFields, useForm } from '../_lib/use-form.ts';
import { Alert } from '../_ui/alert.tsx';
import { Button } from '../_ui/button.tsx';
import { Field } from '../_ui/field.tsx';

export function SignInForm({ callbackUrl, initialError }: { callbackUrl: string; initialError: string | null }) {
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  const form = useForm(signInFormSchema);
  const { values, set } = useFields({ email: '', password: '' }, form);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = form.submit(values);
    if (!parsed) return;
    setBusy(true);
    const result = await signIn('credentials', { email: parsed.email, password: values.password, redirect: false, callbackUrl });
    if (result?.ok && !result.error) {
      window.location.assign(callbackUrl);
      return;
    }
    setBusy(false);
    setError(result?.error === 'CredentialsSignin' ? 'Wrong email or password.' : (result?.error ?? 'Sign-in failed. Try again.'));
  }

  return (
    <form className="stack" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Sign in with email">
      {error && <Alert tone="error">{error}</Alert>}
      <Field
        id="email"
        label="Email"
        type="email"
        autoComplete="email"
        value={values.email}
        error={form.errors.email || undefined}
        onType={(value) => set('email', value)}
        onBlur={() => form.blur(values, 'email')}
        required
      />
      <Field
        id="password"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={values.password}
        error={form.errors.password || undefined}
        onType={(value) => set('password', value)}
        onBlur={() => form.blur(values, 'password')}
        required
      />
      <Button type="submit" variant="primary" block busy={busy}>
        Sign in
      </Button>
    </form>
  );
}
