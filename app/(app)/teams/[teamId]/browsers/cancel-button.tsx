'use client';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Button } from '#app/_ui/button.tsx';

/** Give up a start that waits for room: the portal closes its pending /start, and the service starts nothing for it. */
export function CancelWaitingButton({ teamId, instanceId, name }: { teamId: string; instanceId: string; name: string }) {
  const cancel = useMutation({ mutationFn: () => api('DELETE', `/api/teams/${teamId}/browsers/${instanceId}`) });
  return (
    <div className="stack-sm" style={{ alignItems: 'flex-end' }}>
      <Button size="sm" busy={cancel.isPending} onClick={() => cancel.mutate()} aria-label={`Cancel ${name}`}>
        Cancel
      </Button>
      {cancel.error && (
        <span role="alert" className="muted">
          {cancel.error instanceof ApiError ? cancel.error.message : 'Could not cancel it.'}
        </span>
      )}
    </div>
  );
}
