'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState, type FormEvent } from 'react';
import type { BrowserRow } from '#portal/protocol/dashboard.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';
import { Link } from '#app/_ui/link.tsx';

export type KeyChoice = { id: string; name: string; isDefault: boolean };

/** Name a new browser, pick the key it runs on, start it and open it. */
export function StartForm({ teamId, keys }: { teamId: string; keys: KeyChoice[] }) {
  const router = useRouter();
  const [name, setName] = useState('');
  const [keyId, setKeyId] = useState(keys.find((k) => k.isDefault)?.id ?? keys[0]?.id ?? '');
  const start = useMutation({
    mutationFn: () =>
      api<{ browser: BrowserRow }>('POST', `/api/teams/${teamId}/browsers`, {
        ...(name.trim() ? { name } : {}),
        ...(keyId ? { keyId } : {}),
      }),
    onSuccess: ({ browser }) => router.push(`/teams/${teamId}/browsers/${browser.id}`),
  });
  const failure = start.error instanceof ApiError ? start.error : null;
  const nameError = failure?.fields.name;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate();
  };
  return (
    <>
      <form className="card card-body row" onSubmit={submit} aria-label="Start a browser" style={{ alignItems: 'flex-end' }}>
        <div style={{ flex: '1 1 14rem' }}>
          <Field
            id="browser-name"
            label="Name"
            value={name}
            maxLength={80}
            placeholder="e.g. Checkout test"
            error={nameError}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field" style={{ flex: '1 1 12rem' }}>
          <label htmlFor="browser-key">API key</label>
          <select id="browser-key" className="input" value={keyId} onChange={(e) => setKeyId(e.target.value)} disabled={keys.length === 0}>
            {keys.length === 0 && <option value="">No keys yet</option>}
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
                {k.isDefault ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" variant="primary" busy={start.isPending} disabled={keys.length === 0}>
          Start browser
        </Button>
      </form>
      {keys.length === 0 && (
        <Alert tone="warning">
          This team has no API key yet. <Link href={`/teams/${teamId}/keys`}>Add one on the API keys page</Link> to start browsers.
        </Alert>
      )}
      {start.error && !nameError && <Alert tone="error">{failure ? failure.message : 'Could not start a browser.'}</Alert>}
    </>
  );
}
