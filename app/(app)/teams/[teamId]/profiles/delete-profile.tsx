'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState } from 'react';
import { api } from '#app/_lib/client-api.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';

/** The Delete button of one profile, and the warning it asks to be confirmed. */
export function DeleteProfile({
  teamId,
  keyId,
  keyName,
  name,
  inUse,
}: {
  teamId: string;
  keyId: string;
  keyName: string;
  name: string;
  inUse: boolean;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const mutation = useMutation({
    mutationFn: () => api('DELETE', `/api/teams/${teamId}/profiles/${encodeURIComponent(keyId)}/${encodeURIComponent(name)}`),
    onSuccess: () => {
      setOpen(false);
      router.refresh();
    },
    // A profile deleted meanwhile is gone either way: the list is read again to show it.
    onError: () => router.refresh(),
  });
  return (
    <>
      <Button
        size="sm"
        variant="danger"
        aria-label={`Delete profile ${name} of key ${keyName}`}
        onClick={() => {
          mutation.reset();
          setOpen(true);
        }}
      >
        Delete
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Delete profile ${name}?`}
        description={
          <>
            Scripts that start with <code>profile={name}</code> and the key “{keyName}” will start empty from now on: logged out of every
            site it kept. This cannot be undone.
            {inUse && ' A browser saves into it now, so the service will refuse until that browser has ended.'}
          </>
        }
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="danger-solid" busy={mutation.isPending} onClick={() => mutation.mutate()}>
              Delete profile
            </Button>
          </>
        }
      >
        {mutation.error ? <Alert tone="error">{mutation.error.message}</Alert> : <span />}
      </Dialog>
    </>
  );
}
