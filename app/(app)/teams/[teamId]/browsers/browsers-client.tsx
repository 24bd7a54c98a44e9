'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState, type FormEvent } from 'react';
import type { BrowserView } from '../../../../../lib/portal/browsers.ts';
import { api, ApiError } from '../../../../_lib/client-api.ts';
import { formatDate } from '../../../../_lib/format.ts';
import { Alert } from '../../../../_ui/alert.tsx';
import { Button } from '../../../../_ui/button.tsx';
import { EmptyState } from '../../../../_ui/empty-state.tsx';
import { Field } from '../../../../_ui/field.tsx';
import { Link } from '../../../../_ui/link.tsx';

type Key = { id: string; name: string; isDefault: boolean };

export function BrowsersClient({ teamId, initial, keys }: { teamId: string; initial: BrowserView[]; keys: Key[] }) {
  const router = useRouter();
  const queries = useQueryClient();
  const list = useQuery({
    queryKey: ['browsers', teamId],
    queryFn: () => api<{ browsers: BrowserView[] }>('GET', `/api/teams/${teamId}/browsers`).then((r) => r.browsers),
    initialData: initial,
    refetchInterval: 5000,
  });
  const [name, setName] = useState('');
  const [keyId, setKeyId] = useState(keys.find((k) => k.isDefault)?.id ?? keys[0]?.id ?? '');
  const start = useMutation({
    mutationFn: () => api<{ browser: BrowserView }>('POST', `/api/teams/${teamId}/browsers`, { ...(name.trim() ? { name } : {}), ...(keyId ? { keyId } : {}) }),
    onSuccess: ({ browser }) => router.push(`/teams/${teamId}/browsers/${browser.id}`),
  });
  const stop = useMutation({
    mutationFn: (id: string) => api('DELETE', `/api/teams/${teamId}/browsers/${id}`),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['browsers', teamId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate();
  };
  const browsers = list.data ?? [];
  return (
    <>
      <form className="card row" onSubmit={submit} aria-label="Start a browser" style={{ alignItems: 'flex-end', flexWrap: 'wrap' }}>
        <div style={{ flex: '1 1 14rem' }}>
          <Field id="browser-name" label="Name" value={name} maxLength={80} placeholder="e.g. Checkout test" onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field" style={{ flex: '1 1 12rem' }}>
          <label htmlFor="browser-key">API key</label>
          <select id="browser-key" className="input" value={keyId} onChange={(e) => setKeyId(e.target.value)} disabled={keys.length === 0}>
            {keys.length === 0 && <option value="">No keys yet</option>}
            {keys.map((k) => <option key={k.id} value={k.id}>{k.name}{k.isDefault ? ' (default)' : ''}</option>)}
          </select>
        </div>
        <Button type="submit" variant="primary" busy={start.isPending} disabled={keys.length === 0}>Start browser</Button>
      </form>
      {keys.length === 0 && <Alert tone="warning">This team has no API key yet. <Link href={`/teams/${teamId}/keys`}>Add one on the API keys page</Link> to start browsers.</Alert>}
      {start.error && <Alert tone="error">{start.error instanceof ApiError ? start.error.message : 'Could not start a browser.'}</Alert>}
      {stop.error && <Alert tone="error">{stop.error instanceof ApiError ? stop.error.message : 'Could not stop that browser.'}</Alert>}
      <div className="card">
        {browsers.length === 0 ? (
          <EmptyState icon="◫" title="No browsers running">Start one above: it opens here, live, and keeps running while you work elsewhere.</EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Running browsers">
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Page</th><th scope="col">Started</th><th scope="col">Watching</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
              </thead>
              <tbody>
                {browsers.map((b) => (
                  <tr key={b.id} data-browser-id={b.id}>
                    <td><strong>{b.name}</strong><div className="muted" style={{ fontSize: '0.8rem' }}>by {b.startedBy.name} · key {b.keyName}</div></td>
                    <td><div>{b.title || 'Untitled'}</div><div className="muted" style={{ fontSize: '0.8rem', wordBreak: 'break-all' }}>{b.url}</div></td>
                    <td>{formatDate(b.startedAt)}</td>
                    <td>{b.viewers.length === 0 ? 'Nobody' : b.viewers.map((v) => v.name + (v.control ? ' (control)' : '')).join(', ')}</td>
                    <td style={{ textAlign: 'right' }}>
                      <div className="row" style={{ justifyContent: 'flex-end', gap: 'var(--space-2)' }}>
                        <Link className="btn btn-sm" href={`/teams/${teamId}/browsers/${b.id}`} aria-label={`Open ${b.name}`}>Open</Link>
                        {b.canStop && <Button size="sm" variant="danger" aria-label={`Stop ${b.name}`} busy={stop.isPending && stop.variables === b.id} onClick={() => stop.mutate(b.id)}>Stop</Button>}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </>
  );
}
