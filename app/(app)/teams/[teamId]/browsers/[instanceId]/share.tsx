'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { LiveLinkView } from '#portal/live/links.ts';
import { api } from '#app/_lib/client-api.ts';
import { formatDate } from '#app/_lib/format.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { SecretBox } from '#app/_ui/secret-box.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';
import { Field } from '#app/_ui/field.tsx';
import { Select } from '#app/_ui/select.tsx';

const DURATIONS = [
  { minutes: 5, label: '5 minutes' },
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 8 * 60, label: '8 hours' },
  { minutes: 24 * 60, label: '1 day' },
  { minutes: 7 * 24 * 60, label: '7 days' },
] as const;

/**
 * Share a live browser by link (docs/decisions/0071): watch only, or watch and ask for control;
 * for a while; shown once, with the frame code to put it in another page; the browser's links
 * that still work are listed, each revocable.
 */
export function ShareBrowser({ teamId, instanceId, canShareControl }: { teamId: string; instanceId: string; canShareControl: boolean }) {
  const base = `/api/teams/${teamId}/browsers/${instanceId}/links`;
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<'watch' | 'control'>('watch');
  const [minutes, setMinutes] = useState<number>(60);
  const [label, setLabel] = useState('');
  const [url, setUrl] = useState<string | null>(null);
  const links = useQuery({ queryKey: [base], queryFn: () => api<{ links: LiveLinkView[] }>('GET', base), enabled: open });
  const create = useMutation({
    mutationFn: () => api<{ url: string }>('POST', base, { mode, minutes, ...(label.trim() ? { label: label.trim() } : {}) }),
    onSuccess: (res) => {
      setUrl(res.url);
      void client.invalidateQueries({ queryKey: [base] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api('DELETE', `${base}/${id}`),
    onSettled: () => void client.invalidateQueries({ queryKey: [base] }),
  });
  const close = () => {
    setOpen(false);
    setUrl(null);
    setMode('watch');
    setLabel('');
    create.reset();
  };
  const frame = url ? `<iframe src="${url}" width="1280" height="800" style="border:0" allow="clipboard-write"></iframe>` : '';
  return (
    <>
      <Button onClick={() => setOpen(true)}>Share</Button>
      <Dialog
        open={open}
        onClose={close}
        title={url ? 'Shared link' : 'Share this browser'}
        description={
          url
            ? 'Anyone with this link can open the browser, without an account, until it expires or you revoke it. It is not shown again.'
            : 'Make a link that shows this browser to someone outside the team, or in another page.'
        }
        footer={
          url ? (
            <Button variant="primary" onClick={close}>
              Done
            </Button>
          ) : undefined
        }
      >
        {url ? (
          <div className="stack">
            <SecretBox value={url} label="Shared link" copyLabel="Copy link" testId="live-link" />
            <SecretBox value={frame} label="Code to put it in a page" copyLabel="Copy frame code" />
          </div>
        ) : (
          <form
            className="stack"
            aria-label="Create a shared link"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate();
            }}
          >
            {create.error && <Alert tone="error">{create.error.message}</Alert>}
            <fieldset className="radio-group">
              <legend>The link lets them</legend>
              <label className="radio-card">
                <input type="radio" name="mode" value="watch" checked={mode === 'watch'} onChange={() => setMode('watch')} />
                <span>
                  <strong>Watch</strong>
                  <br />
                  <span className="muted">They see the browser; they cannot touch it.</span>
                </span>
              </label>
              <label className="radio-card">
                <input
                  type="radio"
                  name="mode"
                  value="control"
                  checked={mode === 'control'}
                  disabled={!canShareControl}
                  onChange={() => setMode('control')}
                />
                <span>
                  <strong>Watch and control</strong>
                  <br />
                  <span className="muted">
                    {canShareControl
                      ? 'They may ask for control, like a teammate.'
                      : 'Only whoever started the browser, owners and admins can share control.'}
                  </span>
                </span>
              </label>
            </fieldset>
            <div className="field">
              <label htmlFor="link-minutes">Lasts</label>
              <Select id="link-minutes" className="input" value={String(minutes)} onChoose={(v) => setMinutes(Number(v))}>
                {DURATIONS.map((d) => (
                  <option key={d.minutes} value={d.minutes}>
                    {d.label}
                  </option>
                ))}
              </Select>
            </div>
            <Field
              id="link-label"
              label="Who it is for"
              hint="Shown to the others watching."
              maxLength={60}
              value={label}
              placeholder="Guest"
              onType={(value) => setLabel(value)}
            />
            <div className="row" style={{ justifyContent: 'flex-end' }}>
              <Button onClick={close}>Cancel</Button>
              <Button type="submit" variant="primary" busy={create.isPending}>
                Create link
              </Button>
            </div>
          </form>
        )}
        <section className="stack" aria-label="Links that work now">
          <h3>Links that work now</h3>
          {revoke.error && <Alert tone="error">{revoke.error.message}</Alert>}
          {links.data?.links.length ? (
            <ul className="stack">
              {links.data.links.map((l) => (
                <li key={l.id} className="row" data-link-id={l.id}>
                  <span>
                    <strong>{l.label}</strong> · {l.mode === 'control' ? 'watch and control' : 'watch'} · until {formatDate(l.expiresAt)}
                  </span>
                  {l.canRevoke && (
                    <Button
                      size="sm"
                      variant="danger"
                      busy={revoke.isPending && revoke.variables === l.id}
                      onClick={() => revoke.mutate(l.id)}
                    >
                      Revoke
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{links.isLoading ? 'Loading…' : 'None.'}</p>
          )}
        </section>
      </Dialog>
    </>
  );
}
