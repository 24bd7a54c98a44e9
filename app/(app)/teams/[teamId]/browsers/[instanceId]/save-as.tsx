'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState, type FormEvent } from 'react';
import { PROFILE_NAME_RE, PROFILE_NAME_RULE } from '#portal/schemas.ts';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Button } from '#app/_ui/button.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';
import { Field } from '#app/_ui/field.tsx';

/**
 * Stop the browser and save what its sites keep (cookies, storage) as a profile of its key, under
 * a name asked for here (the service's rule, checked as it is typed): later browsers and the
 * team's scripts start from it logged in. Then back to the list.
 */
export function SaveAsProfileButton({ teamId, instanceId, name }: { teamId: string; instanceId: string; name: string }) {
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  const [profile, setProfile] = useState('');
  const save = useMutation({
    mutationFn: () => api<{ profile: string }>('POST', `/api/teams/${teamId}/browsers/${instanceId}/save-as`, { name: profile.trim() }),
    onSuccess: () => {
      setAsking(false);
      router.push(`/teams/${teamId}/profiles`);
    },
  });
  const failure = save.error instanceof ApiError ? save.error : null;
  const typed = profile.trim();
  const nameError = typed && !PROFILE_NAME_RE.test(typed) ? PROFILE_NAME_RULE : failure?.fields.name;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed && !nameError) save.mutate();
  };
  return (
    <>
      <Button onClick={() => setAsking(true)}>Stop and save as profile…</Button>
      <Dialog
        open={asking}
        onClose={() => setAsking(false)}
        title={`Stop ${name} and save it as a profile?`}
        description="The browser ends, and its cookies and site storage are saved under this name for its API key. A profile of that name is replaced."
        footer={
          <>
            <Button onClick={() => setAsking(false)}>Keep it running</Button>
            <Button variant="danger" type="submit" form="save-as-form" busy={save.isPending} disabled={!typed || Boolean(nameError)}>
              Stop and save
            </Button>
          </>
        }
      >
        <form id="save-as-form" onSubmit={submit}>
          <Field
            id="save-as-name"
            label="Profile name"
            value={profile}
            maxLength={64}
            placeholder="e.g. shop-login"
            hint="Letters, digits, dots, dashes and underscores."
            error={nameError}
            onType={(value) => setProfile(value)}
          />
        </form>
        {save.error && !failure?.fields.name && <p role="alert">{failure ? failure.message : 'Could not stop and save it.'}</p>}
      </Dialog>
    </>
  );
}
