'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState } from 'react';
import type { Role } from '#portal/data/portal-data.ts';
import { api } from '#app/_lib/client-api.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { SecretBox } from '#app/_ui/secret-box.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';
import { Select } from '#app/_ui/select.tsx';

export function InviteButton({ teamId }: { teamId: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [url, setUrl] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: () => api<{ url: string }>('POST', `/api/teams/${teamId}/invites`, { role }),
    onSuccess: (res) => {
      setUrl(res.url);
      router.refresh();
    },
  });
  const close = () => {
    setOpen(false);
    setUrl(null);
    setRole('member');
    mutation.reset();
  };
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        Invite people
      </Button>
      <Dialog
        open={open}
        onClose={close}
        title={url ? 'Invitation link' : 'Invite to this team'}
        description={
          url
            ? 'Send this link to the person you invite. It works once and expires; it is not shown again.'
            : 'Make a link that lets one person join this team.'
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
          <SecretBox value={url} label="Invitation link" copyLabel="Copy link" testId="invite-link" />
        ) : (
          <form
            className="stack"
            aria-label="Create invitation"
            onSubmit={(e) => {
              e.preventDefault();
              mutation.mutate();
            }}
          >
            {mutation.error && <Alert tone="error">{mutation.error.message}</Alert>}
            <fieldset className="radio-group">
              <legend>Role</legend>
              <label className="radio-card">
                <input type="radio" name="role" value="member" checked={role === 'member'} onChange={() => setRole('member')} />
                <span>
                  <strong>Member</strong>
                  <br />
                  <span className="muted">Uses the team&apos;s keys.</span>
                </span>
              </label>
              <label className="radio-card">
                <input type="radio" name="role" value="admin" checked={role === 'admin'} onChange={() => setRole('admin')} />
                <span>
                  <strong>Admin</strong>
                  <br />
                  <span className="muted">Also manages members, keys and sees the audit log.</span>
                </span>
              </label>
            </fieldset>
            <div className="row" style={{ justifyContent: 'flex-end' }}>
              <Button onClick={close}>Cancel</Button>
              <Button type="submit" variant="primary" busy={mutation.isPending}>
                Create link
              </Button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}

export function RevokeInviteButton({ teamId, inviteId }: { teamId: string; inviteId: string }) {
  const router = useRouter();
  const mutation = useMutation({
    mutationFn: () => api('DELETE', `/api/teams/${teamId}/invites/${inviteId}`),
    onSuccess: () => router.refresh(),
  });
  return (
    <>
      <Button size="sm" variant="danger" busy={mutation.isPending} onClick={() => mutation.mutate()}>
        Withdraw
      </Button>
      {mutation.error && (
        <span role="alert" className="field-error">
          {mutation.error.message}
        </span>
      )}
    </>
  );
}

type Props = { teamId: string; userId: string; email: string; role: Role; self: boolean; myRole: Role };

/** Role change and removal, offered only where the server would allow them (it checks again). */
export function MemberActions({ teamId, userId, email, role, self, myRole }: Props) {
  const router = useRouter();
  const [confirm, setConfirm] = useState(false);
  const mutation = useMutation({
    mutationFn: ({ method, body }: { method: 'PATCH' | 'DELETE'; body?: unknown }) =>
      api(method, `/api/teams/${teamId}/members/${userId}`, body),
    onSuccess: (_res, vars) => {
      setConfirm(false);
      if (self && vars.method === 'DELETE') window.location.assign('/');
      else router.refresh();
    },
  });
  const manager = myRole === 'owner' || myRole === 'admin';
  const canChangeRole = manager && (myRole === 'owner' || (role !== 'owner' && !self));
  const canRemove = self || (manager && (myRole === 'owner' || role !== 'owner'));
  const roles: Role[] = myRole === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member'];
  return (
    <div className="row" style={{ justifyContent: 'flex-end', gap: 'var(--space-2)' }}>
      {canChangeRole && (
        <Select
          className="select"
          style={{ width: 'auto', minHeight: '1.9rem' }}
          aria-label={`Role of ${email}`}
          value={role}
          disabled={mutation.isPending}
          onChoose={(chosen) => mutation.mutate({ method: 'PATCH', body: { role: chosen } })}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r[0]?.toUpperCase()}
              {r.slice(1)}
            </option>
          ))}
        </Select>
      )}
      {canRemove && (
        <Button size="sm" variant="danger" aria-label={self ? 'Leave team' : `Remove ${email}`} onClick={() => setConfirm(true)}>
          {self ? 'Leave' : 'Remove'}
        </Button>
      )}
      {mutation.error && !confirm && (
        <span role="alert" className="field-error">
          {mutation.error.message}
        </span>
      )}
      <Dialog
        open={confirm}
        onClose={() => setConfirm(false)}
        title={self ? 'Leave this team?' : `Remove ${email}?`}
        description={
          self ? 'You lose access to its keys until someone invites you again.' : 'They lose access to this team and its keys at once.'
        }
        footer={
          <>
            <Button onClick={() => setConfirm(false)}>Cancel</Button>
            <Button variant="danger-solid" busy={mutation.isPending} onClick={() => mutation.mutate({ method: 'DELETE' })}>
              {self ? 'Leave team' : 'Remove member'}
            </Button>
          </>
        }
      >
        {mutation.error ? <Alert tone="error">{mutation.error.message}</Alert> : <span />}
      </Dialog>
    </div>
  );
}
