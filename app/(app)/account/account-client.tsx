'use client';
import { useMutation } from '@tanstack/react-query';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation.js';
import { useState } from 'react';
import { PASSWORD_MIN_LENGTH } from '#portal/crypto/password-rules.ts';
import type { z } from 'zod';
import { passwordFormSchema, profileFormSchema } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { useFields, useForm } from '#app/_lib/use-form.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';
import { Field } from '#app/_ui/field.tsx';

export function ProfileForm({ name, email, hasPassword }: { name: string; email: string; hasPassword: boolean }) {
  const router = useRouter();
  const form = useForm(profileFormSchema);
  const { values, set, setValues } = useFields({ name, email, currentPassword: '' }, form);
  const emailChanged = values.email.trim().toLowerCase() !== email;
  const mutation = useMutation({
    mutationFn: (body: z.output<typeof profileFormSchema>) =>
      api('PATCH', '/api/me', {
        name: body.name,
        ...(emailChanged ? { email: body.email, ...(hasPassword ? { currentPassword: body.currentPassword } : {}) } : {}),
      }),
    onSuccess: () => {
      setValues((v) => ({ ...v, currentPassword: '' }));
      router.refresh();
    },
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  return (
    <form
      className="stack"
      style={{ maxWidth: '28rem' }}
      noValidate
      aria-label="Name and email"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = form.submit(values);
        if (parsed) mutation.mutate(parsed);
      }}
    >
      {mutation.isSuccess && <Alert tone="success">Saved.</Alert>}
      {mutation.error && !(mutation.error instanceof ApiError && Object.keys(mutation.error.fields).length) && (
        <Alert tone="error">{mutation.error.message}</Alert>
      )}
      <Field
        id="account-name"
        label="Name"
        autoComplete="name"
        value={values.name}
        error={form.errors.name || undefined}
        onType={(value) => set('name', value)}
        onBlur={() => form.blur(values, 'name')}
      />
      <Field
        id="account-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={values.email}
        error={form.errors.email || undefined}
        onType={(value) => set('email', value)}
        onBlur={() => form.blur(values, 'email')}
      />
      {emailChanged && hasPassword && (
        <Field
          id="account-email-password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={values.currentPassword}
          hint="Needed to change your email."
          error={form.errors.currentPassword || undefined}
          onType={(value) => set('currentPassword', value)}
        />
      )}
      <div>
        <Button type="submit" variant="primary" busy={mutation.isPending}>
          Save
        </Button>
      </div>
    </form>
  );
}

export function PasswordForm({ email, hasPassword }: { email: string; hasPassword: boolean }) {
  const [done, setDone] = useState(false);
  const form = useForm(passwordFormSchema);
  const { values, set, setValues } = useFields({ currentPassword: '', newPassword: '' }, form);
  const mutation = useMutation({
    mutationFn: async (body: z.output<typeof passwordFormSchema>) => {
      await api('PUT', '/api/me/password', {
        newPassword: body.newPassword,
        ...(hasPassword ? { currentPassword: body.currentPassword } : {}),
      });
      // Every session ended with the change, this one too: sign in again with the new password.
      const result = await signIn('credentials', { email, password: body.newPassword, redirect: false });
      if (!result?.ok || result.error) window.location.assign('/signin');
    },
    onSuccess: () => {
      setValues({ currentPassword: '', newPassword: '' });
      setDone(true);
    },
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  return (
    <form
      className="stack"
      style={{ maxWidth: '28rem' }}
      noValidate
      aria-label="Change password"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(false);
        const parsed = form.submit(values);
        if (parsed) mutation.mutate(parsed);
      }}
    >
      {done && <Alert tone="success">Password changed. Every other session of your account has ended.</Alert>}
      {mutation.error && !(mutation.error instanceof ApiError && Object.keys(mutation.error.fields).length) && (
        <Alert tone="error">{mutation.error.message}</Alert>
      )}
      {hasPassword && (
        <Field
          id="current-password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={values.currentPassword}
          error={form.errors.currentPassword || undefined}
          onType={(value) => set('currentPassword', value)}
        />
      )}
      <Field
        id="new-password"
        label="New password"
        type="password"
        autoComplete="new-password"
        value={values.newPassword}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        error={form.errors.newPassword || undefined}
        onType={(value) => set('newPassword', value)}
        onBlur={() => form.blur(values, 'newPassword')}
      />
      <div>
        <Button type="submit" variant="primary" busy={mutation.isPending}>
          {hasPassword ? 'Change password' : 'Set password'}
        </Button>
      </div>
    </form>
  );
}

export function SignOutEverywhere() {
  const mutation = useMutation({
    mutationFn: () => api('DELETE', '/api/me/sessions'),
    onSuccess: () => window.location.assign('/signin'),
  });
  return (
    <div className="stack-sm">
      {mutation.error && <Alert tone="error">{mutation.error.message}</Alert>}
      <div>
        <Button busy={mutation.isPending} onClick={() => mutation.mutate()}>
          Sign out everywhere
        </Button>
      </div>
    </div>
  );
}

export function DeleteAccount({ email, hasPassword }: { email: string; hasPassword: boolean }) {
  const [open, setOpen] = useState(false);
  const [confirm, setConfirm] = useState('');
  const mutation = useMutation({
    mutationFn: () => api('DELETE', '/api/me', hasPassword ? { password: confirm } : { confirmEmail: confirm }),
    onSuccess: () => window.location.assign('/signin'),
  });
  const fieldError = mutation.error instanceof ApiError ? Object.values(mutation.error.fields)[0] : undefined;
  const close = () => {
    setOpen(false);
    setConfirm('');
    mutation.reset();
  };
  return (
    <>
      <div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          Delete account…
        </Button>
      </div>
      <Dialog
        open={open}
        onClose={close}
        title="Delete your account?"
        description="This cannot be undone."
        footer={
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="danger-solid" busy={mutation.isPending} disabled={!confirm} onClick={() => mutation.mutate()}>
              Delete account
            </Button>
          </>
        }
      >
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (confirm) mutation.mutate();
          }}
        >
          {mutation.error && !fieldError && <Alert tone="error">{mutation.error.message}</Alert>}
          {hasPassword ? (
            <Field
              id="delete-password"
              label="Your password"
              type="password"
              autoComplete="current-password"
              value={confirm}
              error={fieldError}
              onType={(value) => setConfirm(value)}
            />
          ) : (
            <Field
              id="delete-email"
              label={`Type ${email} to confirm`}
              type="email"
              value={confirm}
              error={fieldError}
              onType={(value) => setConfirm(value)}
            />
          )}
        </form>
      </Dialog>
    </>
  );
}
