'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState, type FormEvent } from 'react';
import type { BrowserRow } from '#portal/protocol/dashboard.ts';
import { LIFETIME_CHOICES, PROFILE_NAME_RE, PROFILE_NAME_RULE } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';
import { Link } from '#app/_ui/link.tsx';
import { ProfileField } from './profile-field.tsx';
import { Select } from '#app/_ui/select.tsx';

export type KeyChoice = { id: string; name: string; isDefault: boolean };
/** A proxy of the team's as the form offers it: its name and where it is, never its credentials. */
export type ProxyChoice = { id: string; name: string; scheme: string; host: string; port: number };

/**
 * Name a new browser, pick the key it runs on, how long it may live and the proxy its traffic
 * leaves through, start it and open it. At capacity the start waits for room: the dashboard lists
 * it as waiting, where it can be cancelled.
 */
export function StartForm({ teamId, keys, proxies }: { teamId: string; keys: KeyChoice[]; proxies: ProxyChoice[] }) {
  const router = useRouter();
  const [name, setName] = useState('');
  const [keyId, setKeyId] = useState(keys.find((k) => k.isDefault)?.id ?? keys[0]?.id ?? '');
  const [lifetime, setLifetime] = useState('');
  const [proxyId, setProxyId] = useState('');
  const [profile, setProfile] = useState('');
  const [persist, setPersist] = useState(false);
  const start = useMutation({
    mutationFn: () =>
      api<{ browser: BrowserRow }>('POST', `/api/teams/${teamId}/browsers`, {
        ...(name.trim() ? { name } : {}),
        ...(keyId ? { keyId } : {}),
        ...(lifetime ? { lifetimeSeconds: Number(lifetime) } : {}),
        ...(proxyId ? { proxyId } : {}),
        ...(profile.trim() ? { profile: profile.trim(), persist } : {}),
      }),
    onSuccess: ({ browser }) => router.push(`/teams/${teamId}/browsers/${browser.id}`),
  });
  const failure = start.error instanceof ApiError ? start.error : null;
  const nameError = failure?.fields.name;
  const profileError = profile.trim() && !PROFILE_NAME_RE.test(profile.trim()) ? PROFILE_NAME_RULE : failure?.fields.profile;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!profileError) start.mutate();
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
            onType={(value) => setName(value)}
          />
        </div>
        <div className="field" style={{ flex: '1 1 12rem' }}>
          <label htmlFor="browser-key">API key</label>
          <Select id="browser-key" className="input" value={keyId} onChoose={setKeyId} disabled={keys.length === 0}>
            {keys.length === 0 && <option value="">No keys yet</option>}
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
                {k.isDefault ? ' (default)' : ''}
              </option>
            ))}
          </Select>
        </div>
        <div className="field" style={{ flex: '1 1 11rem' }}>
          <label htmlFor="browser-lifetime">Lifetime</label>
          <Select id="browser-lifetime" className="input" value={lifetime} onChoose={setLifetime}>
            <option value="">Service maximum</option>
            {LIFETIME_CHOICES.map((c) => (
              <option key={c.seconds} value={c.seconds}>
                {c.label}
              </option>
            ))}
          </Select>
        </div>
        <div className="field" style={{ flex: '1 1 12rem' }}>
          <label htmlFor="browser-proxy">Proxy</label>
          <Select id="browser-proxy" className="input" value={proxyId} onChoose={setProxyId}>
            <option value="">None</option>
            {proxies.map((x) => (
              <option key={x.id} value={x.id}>
                {x.name} ({x.scheme}://{x.host}:{x.port})
              </option>
            ))}
          </Select>
        </div>
        <div style={{ flex: '1 1 12rem' }}>
          <ProfileField teamId={teamId} keyId={keyId} value={profile} error={profileError} onChange={setProfile} />
        </div>
        <label style={{ flex: '1 1 12rem', display: 'flex', gap: '.4rem', alignItems: 'center', minHeight: '2.5rem' }}>
          <input type="checkbox" checked={persist} disabled={!profile.trim()} onChange={(e) => setPersist(e.target.checked)} />
          Save changes back to it when the browser ends
        </label>
        <Button type="submit" variant="primary" busy={start.isPending} disabled={keys.length === 0}>
          Start browser
        </Button>
      </form>
      {keys.length === 0 && (
        <Alert tone="warning">
          This team has no API key yet. <Link href={`/teams/${teamId}/keys`}>Add one on the API keys page</Link> to start browsers.
        </Alert>
      )}
      {start.isPending && (
        <p className="muted" role="status">
          Starting… When the service is full, the browser waits for room and is listed below as waiting.
        </p>
      )}
      {start.error && !nameError && !failure?.fields.profile && (
        <Alert tone="error">{failure ? failure.message : 'Could not start a browser.'}</Alert>
      )}
    </>
  );
}
