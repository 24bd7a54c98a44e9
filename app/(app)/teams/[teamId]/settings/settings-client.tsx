'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState } from 'react';
import { renameTeamSchema } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { useForm } from '#app/_lib/use-form.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';

export function RenameTeamForm({ teamId, name }: { teamId: string; name: string }) {
  const router = useRouter();
  const [value, setValue] = useState(name);
  const form = useForm(renameTeamSchema);
  const mutation = useMutation({
    mutationFn: (body: { name: string }) => api('PATCH', `/api/teams/${teamId}`, body),
    onSuccess: () => router.refresh(),
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  return (
    <form
      className="stack"
      style={{ maxWidth: '28rem' }}
      noValidate
      aria-label="Rename team"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = form.submit({ name: value });
        if (parsed) mutation.mutate(parsed);
      }}
    >
      {mutation.isSuccess && <Alert tone="success">Saved.</Alert>}
      <Field
        id="team-name"
        label="Team name"
        value={value}
        error={form.errors.name || undefined}
        onType={(value) => {
          setValue(value);
          form.change({ name: value }, 'name');
        }}
        onBlur={() => form.blur({ name: value }, 'name')}
      />
      <div>
        <Button type="submit" variant="primary" busy={mutation.isPending}>
          Save
        </Button>
      </div>
    </form>
  );
}

export function LeaveTeam({ teamId, userId }: { teamId: string; userId: string }) {
  const mutation = useMutation({
    mutationFn: () => api('DELETE', `/api/teams/${teamId}/members/${userId}`),
    onSuccess: () => window.location.assign('/'),
  });
  return (
    <div className="stack-sm">
      {mutation.error && <Alert tone="error">{mutation.error.message}</Alert>}
      <div>
        <Button variant="danger" busy={mutation.isPending} onClick={() => mutation.mutate()}>
          Leave team
        </Button>
      </div>
    </div>
  );
}

/** One switch: record every browser of the team's keys (decision 0070), with what it changed. */
export function TeamRecording({ teamId, record, canChange }: { teamId: string; record: boolean; canChange: boolean }) {
  const router = useRouter();
  const [on, setOn] = useState(record);
  const mutation = useMutation({
    mutationFn: (next: boolean) =>
      api<{ record: boolean; changed: number; elsewhere: number }>('PUT', `/api/teams/${teamId}/recording`, { record: next }),
    onMutate: (next) => setOn(next),
    onError: (_err, next) => setOn(!next),
    onSuccess: () => router.refresh(),
  });
  const result = mutation.data;
  return (
    <div className="stack-sm">
      <div className="row" style={{ gap: 'var(--space-2)' }}>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-labelledby="team-recording-label"
          className="btn btn-sm"
          disabled={!canChange || mutation.isPending}
          onClick={() => mutation.mutate(!on)}
        >
          {on ? 'On' : 'Off'}
        </button>
        <span id="team-recording-label">Record every browser started with this team&apos;s keys</span>
      </div>
      {!canChange && <p className="muted">Owners and admins can change this.</p>}
      {result && (
        <Alert tone={result.elsewhere ? 'warning' : 'success'}>
          {result.record ? 'Recording is on' : 'Recording is off'} for {result.changed} key{result.changed === 1 ? '' : 's'}, from their
          next browser.
          {result.elsewhere > 0 &&
            ` ${result.elsewhere} key${result.elsewhere === 1 ? ' was' : 's were'} added from another deployment: its operator turns recording on with npm run keys -- record ID on.`}
        </Alert>
      )}
      {mutation.error && <Alert tone="error">{mutation.error instanceof ApiError ? mutation.error.message : 'Could not change it.'}</Alert>}
    </div>
  );
}
