'use client';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { PASSWORD_MIN_LENGTH } from '#portal/crypto/password-rules.ts';
import { signUpSchema } from '#portal/schemas.ts';
import { api, ApiError } from '../_lib/client-api.ts';
import { useFields, useForm } from '../_lib/use-form.ts';
import { Alert } from '../_ui/alert.tsx';
import { Button } from '../_ui/button.tsx';
import { Field } from '../_ui/field.tsx';

const SIGN_IN_AFTER_SIGN_UP_FAILED =
  'We could not sign you in with this email and password. If you already have an account, sign in instead (or ask an operator for a reset link).';

export function SignUpForm({ callbackUrl }: { callbackUrl: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useForm(signUpSchema);
  const { values, set } = useFields({ name: '', email: '', password: '' }, form);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = form.submit(values);
    if (!parsed) return;
    setBusy(true);
    try {
      await api('POST', '/api/signup', parsed);
      const result = await signIn('credentials', { email: parsed.email, password: parsed.password, redirect: false, callbackUrl });
      // Sign-up does not say whether the address was already taken; signing in works only for its owner.
      if (!result?.ok || result.error) throw new Error(SIGN_IN_AFTER_SIGN_UP_FAILED);
      window.location.assign(callbackUrl);
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && Object.keys(err.fields).length) form.setErrors(err.fields);
      setError((err as Error).message);
    }
  }

  return (
    <form className="stack" onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Create account">
      {error && <Alert tone="error">{error}</Alert>}
      <Field
        id="name"
        label="Name"
        autoComplete="name"
        value={values.name}
        error={form.errors.name || undefined}
        onType={(value) => set('name', value)}
        onBlur={() => form.blur(values, 'name')}
        required
      />
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
        autoComplete="new-password"
        value={values.password}
        error={form.errors.password || undefined}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters. A passphrase of a few words works well.`}
        onType={(value) => set('password', value)}
        onBlur={() => form.blur(values, 'password')}
        required
      />
      <Button type="submit" variant="primary" block busy={busy}>
        Create account
      </Button>
    </form>
  );
}
