'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import type { FormEvent } from 'react';
import type { ProxyView } from '#portal/keys/proxies.ts';
import { newProxySchema } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { formatDate } from '#app/_lib/format.ts';
import { useFields, useForm } from '#app/_lib/use-form.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';
import { Table } from '#app/_ui/table.tsx';
import './proxies.css';

/**
 * The team's upstream proxies: each listed by name, scheme and host (never its credentials); owners
 * and admins add one by name and address and delete them.
 */
export function TeamProxies({ teamId, proxies, canChange }: { teamId: string; proxies: ProxyView[]; canChange: boolean }) {
  return (
    <div className="stack">
      {proxies.length === 0 ? (
        <p className="muted">No proxies yet: browsers reach the web straight from the service.</p>
      ) : (
        <Table label="Proxies" columns={['Proxy', 'Login', ...(canChange ? [{ hidden: 'Actions' }] : [])]}>
          {proxies.map((x) => (
            <tr key={x.id} data-proxy-id={x.id}>
              <td>
                <div className="proxy-cell">
                  <strong>{x.name}</strong>
                  <code>
                    {x.scheme}://{x.host}:{x.port}
                  </code>
                  <span className="muted">added {formatDate(x.createdAt)}</span>
                </div>
              </td>
              <td>{x.hasCredentials ? 'Yes' : 'No'}</td>
              {canChange && (
                <td>
                  <DeleteProxy teamId={teamId} proxy={x} />
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      {canChange ? <AddProxyForm teamId={teamId} /> : <p className="muted">Owners and admins can add and delete proxies.</p>}
    </div>
  );
}

function AddProxyForm({ teamId }: { teamId: string }) {
  const router = useRouter();
  const form = useForm(newProxySchema);
  const { values, set: setField, setValues } = useFields({ name: '', url: '' }, form);
  const mutation = useMutation({
    mutationFn: (body: { name: string; url: string }) => api<{ proxy: ProxyView }>('POST', `/api/teams/${teamId}/proxies`, body),
    onSuccess: () => {
      setValues({ name: '', url: '' });
      router.refresh();
    },
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  const set = (field: 'name' | 'url', value: string) => {
    if (mutation.isSuccess) mutation.reset();
    setField(field, value);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Checked here as the server checks it; the text as typed is what is sent.
    if (form.submit(values)) mutation.mutate(values);
  };
  const failure = mutation.error instanceof ApiError && !Object.keys(mutation.error.fields).length ? mutation.error.message : null;
  return (
    <form className="stack proxy-form" noValidate aria-label="Add a proxy" onSubmit={submit}>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <div style={{ flex: '1 1 10rem' }}>
          <Field
            id="proxy-name"
            label="Proxy name"
            value={values.name}
            maxLength={60}
            placeholder="e.g. Office egress"
            error={form.errors.name || undefined}
            onType={(value) => set('name', value)}
            onBlur={() => form.blur(values, 'name')}
          />
        </div>
        <div style={{ flex: '3 1 18rem' }}>
          <Field
            id="proxy-url"
            label="Proxy address"
            value={values.url}
            placeholder="http://user:password@proxy.example.com:8080"
            autoComplete="off"
            spellCheck={false}
            hint="http://, https:// or socks5://; user and password optional. Stored encrypted, never shown again."
            error={form.errors.url || undefined}
            onType={(value) => set('url', value)}
            onBlur={() => form.blur(values, 'url')}
          />
        </div>
      </div>
      {failure && <Alert tone="error">{failure}</Alert>}
      {mutation.isSuccess && <Alert tone="success">Added {mutation.data.proxy.name}.</Alert>}
      <div>
        <Button type="submit" variant="primary" busy={mutation.isPending}>
          Add proxy
        </Button>
      </div>
    </form>
  );
}

function DeleteProxy({ teamId, proxy }: { teamId: string; proxy: ProxyView }) {
  const router = useRouter();
  const mutation = useMutation({
    mutationFn: () => api('DELETE', `/api/teams/${teamId}/proxies/${proxy.id}`),
    onSuccess: () => router.refresh(),
  });
  return (
    <div className="stack-sm" style={{ alignItems: 'flex-end' }}>
      <Button
        variant="danger"
        size="sm"
        busy={mutation.isPending}
        onClick={() => mutation.mutate()}
        aria-label={`Delete proxy ${proxy.name}`}
      >
        Delete
      </Button>
      {mutation.error && <span className="field-error">{mutation.error.message}</span>}
    </div>
  );
}
