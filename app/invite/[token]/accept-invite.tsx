'use client';
import { useMutation } from '@tanstack/react-query';
import { api } from '#app/_lib/client-api.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';

export function AcceptInvite({ token, teamName }: { token: string; teamName: string }) {
  const mutation = useMutation({
    mutationFn: () => api<{ teamId: string }>('POST', `/api/invites/${encodeURIComponent(token)}`),
    onSuccess: (res) => window.location.assign(`/teams/${res.teamId}/keys`),
  });
  return (
    <div className="stack-sm">
      {mutation.error && <Alert tone="error">{mutation.error.message}</Alert>}
      <div>
        <Button variant="primary" busy={mutation.isPending} onClick={() => mutation.mutate()}>
          Join {teamName}
        </Button>
      </div>
    </div>
  );
}
