'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Button } from '#app/_ui/button.tsx';
import { Field } from '#app/_ui/field.tsx';

/** Rename a browser in place (the starter, owners and admins). */
export function RenameBrowser({ teamId, instanceId, name }: { teamId: string; instanceId: string; name: string }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name);
  const rename = useMutation({
    mutationFn: () => api('PATCH', `/api/teams/${teamId}/browsers/${instanceId}`, { name: value }),
    onSuccess: () => {
      setEditing(false);
      router.refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate();
  };
  if (!editing)
    return (
      <Button size="sm" aria-label={`Rename ${name}`} onClick={() => setEditing(true)}>
        Rename
      </Button>
    );
  const error = !value.trim() ? 'Give it a name.' : rename.error instanceof ApiError ? rename.error.message : undefined;
  return (
    <form className="row" onSubmit={submit} aria-label="Rename this browser" style={{ alignItems: 'flex-end' }}>
      <Field
        id="rename-browser"
        label="New name"
        value={value}
        maxLength={80}
        autoFocus
        onType={(value) => setValue(value)}
        error={error}
      />
      <Button type="submit" size="sm" variant="primary" busy={rename.isPending} disabled={!value.trim()}>
        Save name
      </Button>
      <Button size="sm" onClick={() => setEditing(false)}>
        Cancel
      </Button>
    </form>
  );
}
