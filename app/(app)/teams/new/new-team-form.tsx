'use client';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { createTeamSchema } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { useForm } from '#app/_lib/use-form.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';

export function NewTeamForm() {
  const [name, setName] = useState('');
  const form = useForm(createTeamSchema);
  const mutation = useMutation({
    mutationFn: (body: { name: string }) => api<{ team: { id: string } }>('POST', '/api/teams', body),
    onSuccess: (res) => window.location.assign(`/teams/${res.team.id}/keys`),
    onError: (err) => err instanceof ApiError && form.setErrors(err.fields),
  });
  return (
    <form
      className="stack"
      noValidate
      aria-label="Create team"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = form.submit({ name });
        if (parsed) mutation.mutate(parsed);
      }}
    >
      {mutation.error && !(mutation.error instanceof ApiError && mutation.error.fields.name) && (
        <Alert tone="error">{mutation.error.message}</Alert>
      )}
      <Field
        id="team-name"
        label="Team name"
        placeholder="e.g. Research"
        value={name}
        error={form.errors.name || undefined}
        autoFocus
        onType={(value) => {
          setName(value);
          form.change({ name: value }, 'name');
        }}
        onBlur={() => form.blur({ name }, 'name')}
      />
      <div>
        <Button type="submit" variant="primary" busy={mutation.isPending}>
          Create team
        </Button>
      </div>
    </form>
  );
}
