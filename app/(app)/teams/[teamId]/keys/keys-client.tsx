'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState, type FormEvent } from 'react';
import { newKeySchema, renameKeyFormSchema } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { useFields, useForm } from '#app/_lib/use-form.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { SecretBox } from '#app/_ui/secret-box.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';
import { Field } from '#app/_ui/field.tsx';

type Mode = 'create' | 'add';

export function NewKeyButtons({ teamId, canIssue }: { teamId: string; canIssue: boolean }) {
  const [mode, setMode] = useState<Mode | null>(null);
  return (
    <div className="row">
      <Button onClick={() => setMode('add')}>Add existing key</Button>
      {canIssue && (
        <Button variant="primary" onClick={() => setMode('create')}>
          Create key
        </Button>
      )}
      <NewKeyDialog teamId={teamId} mode={mode} onClose={() => setMode(null)} />
    </div>
  );
}

/** Create or add a key; on success the full key is shown here once, then forgotten. */
function NewKeyDialog({ teamId, mode, onClose }: { teamId: string; mode: Mode | null; onClose: () => void }) {
  const router = useRouter();
  const [shown, setShown] = useState<string | null>(null);
  const form = useForm(newKeySchema);
  type Values = { name: string; key: string };
  const body = (v: Values) => (mode === 'add' ? { mode, ...v } : { mode, name: v.name });
  const { values, set, setValues } = useFields<Values>(
    { name: '', key: '' },
    { change: (v, field) => form.change(body(v as Values), field) },
  );
  const mutation = useMutation({
    mutationFn: (input: unknown) => api<{ token: string }>('POST', `/api/teams/${teamId}/keys`, input),
    onSuccess: (res) => {
      setShown(mode === 'create' ? res.token : null);
      if (mode === 'add') close();
      router.refresh();
    },
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  const close = () => {
    setValues({ name: '', key: '' });
    setShown(null);
    form.setErrors({});
    mutation.reset();
    onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = form.submit(body(values));
    if (parsed) mutation.mutate(parsed);
  };

  if (shown) {
    return (
      <Dialog
        open
        title="Your new API key"
        onClose={close}
        description="Copy it now. For your security it will not be shown again; the portal keeps it encrypted and uses it for you."
        footer={
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        }
      >
        <SecretBox value={shown} label="New API key" copyLabel="Copy key" testId="new-key" />
      </Dialog>
    );
  }
  return (
    <Dialog
      open={mode !== null}
      onClose={close}
      title={mode === 'add' ? 'Add an existing key' : 'Create a key'}
      description={
        mode === 'add'
          ? 'Store a key that a remote Periscope deployment issued. It is encrypted at rest and never shown again.'
          : 'The service issues a new key for this team.'
      }
    >
      <form className="stack" onSubmit={submit} noValidate aria-label={mode === 'add' ? 'Add existing key' : 'Create key'}>
        {mutation.error && !(mutation.error instanceof ApiError && Object.keys(mutation.error.fields).length) && (
          <Alert tone="error">{mutation.error.message}</Alert>
        )}
        <Field
          id="key-name"
          label="Key name"
          placeholder="e.g. CI pipeline"
          value={values.name}
          error={form.errors.name || undefined}
          onType={(value) => set('name', value)}
          onBlur={() => form.blur(body(values), 'name')}
          autoFocus
        />
        {mode === 'add' && (
          <Field
            id="key-value"
            label="API key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={values.key}
            error={form.errors.key || undefined}
            onType={(value) => set('key', value)}
            onBlur={() => form.blur(body(values), 'key')}
          />
        )}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" busy={mutation.isPending}>
            {mode === 'add' ? 'Save key' : 'Create key'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export function KeyActions({ teamId, keyId, name, isDefault }: { teamId: string; keyId: string; name: string; isDefault: boolean }) {
  const router = useRouter();
  const [dialog, setDialog] = useState<'rename' | 'revoke' | null>(null);
  const [newName, setNewName] = useState(name);
  const form = useForm(renameKeyFormSchema);
  const mutation = useMutation({
    mutationFn: ({ method, body }: { method: 'PATCH' | 'DELETE'; body?: unknown }) =>
      api(method, `/api/teams/${teamId}/keys/${keyId}`, body),
    onSuccess: () => {
      setDialog(null);
      router.refresh();
    },
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  return (
    <div className="row" style={{ justifyContent: 'flex-end', gap: 'var(--space-2)' }}>
      {!isDefault && (
        <Button
          size="sm"
          variant="ghost"
          aria-label={`Make ${name} the default key`}
          busy={mutation.isPending && !dialog}
          onClick={() => mutation.mutate({ method: 'PATCH', body: { default: true } })}
        >
          Make default
        </Button>
      )}
      <Button
        size="sm"
        variant="ghost"
        aria-label={`Rename ${name}`}
        onClick={() => {
          setNewName(name);
          setDialog('rename');
        }}
      >
        Rename
      </Button>
      <Button size="sm" variant="danger" aria-label={`Revoke ${name}`} onClick={() => setDialog('revoke')}>
        Revoke
      </Button>
      {mutation.error && !dialog && (
        <span role="alert" className="field-error">
          {mutation.error.message}
        </span>
      )}
      <Dialog open={dialog === 'rename'} onClose={() => setDialog(null)} title="Rename key">
        <form
          className="stack"
          noValidate
          aria-label="Rename key"
          onSubmit={(e) => {
            e.preventDefault();
            const parsed = form.submit({ name: newName });
            if (parsed) mutation.mutate({ method: 'PATCH', body: { name: parsed.name } });
          }}
        >
          {mutation.error && dialog === 'rename' && !(mutation.error instanceof ApiError && mutation.error.fields.name) && (
            <Alert tone="error">{mutation.error.message}</Alert>
          )}
          <Field
            id={`rename-${keyId}`}
            label="Key name"
            value={newName}
            error={form.errors.name || undefined}
            onType={(value) => {
              setNewName(value);
              form.change({ name: value }, 'name');
            }}
            onBlur={() => form.blur({ name: newName }, 'name')}
            autoFocus
          />
          <div className="row" style={{ justifyContent: 'flex-end' }}>
            <Button onClick={() => setDialog(null)}>Cancel</Button>
            <Button type="submit" variant="primary" busy={mutation.isPending}>
              Save name
            </Button>
          </div>
        </form>
      </Dialog>
      <Dialog
        open={dialog === 'revoke'}
        onClose={() => setDialog(null)}
        title={`Revoke ${name}?`}
        description="Anything using this key stops working at once. This cannot be undone."
        footer={
          <>
            <Button onClick={() => setDialog(null)}>Cancel</Button>
            <Button variant="danger-solid" busy={mutation.isPending} onClick={() => mutation.mutate({ method: 'DELETE' })}>
              Revoke key
            </Button>
          </>
        }
      >
        {mutation.error && dialog === 'revoke' ? <Alert tone="error">{mutation.error.message}</Alert> : <span />}
      </Dialog>
    </div>
  );
}

/** Ask the service, through the portal's server, whether it accepts the key. */
export function KeyTest({ teamId, keyId, name }: { teamId: string; keyId: string; name: string }) {
  const router = useRouter();
  const mutation = useMutation({
    mutationFn: () => api<{ accepted: boolean; message: string }>('POST', `/api/teams/${teamId}/keys/${keyId}/check`),
    onSuccess: () => router.refresh(),
  });
  return (
    <>
      <Button size="sm" variant="ghost" aria-label={`Test ${name}`} busy={mutation.isPending} onClick={() => mutation.mutate()}>
        Test
      </Button>
      <span
        role="status"
        className={mutation.data?.accepted ? 'badge badge-success' : mutation.data || mutation.error ? 'badge badge-danger' : 'sr-only'}
      >
        {mutation.data ? mutation.data.message : mutation.error ? mutation.error.message : ''}
      </span>
    </>
  );
}
