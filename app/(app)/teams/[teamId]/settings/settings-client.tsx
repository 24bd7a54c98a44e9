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
        onChange={(e) => {
          setValue(e.target.value);
          form.change({ name: e.target.value }, 'name');
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
