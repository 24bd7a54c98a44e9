'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { useState } from 'react';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Button } from '#app/_ui/button.tsx';
import { Dialog } from '#app/_ui/dialog.tsx';
import { onlookersText, type Onlooker } from '#app/_lib/format.ts';

/**
 * Stop a team browser. When someone else is watching it or has control, ask first and say who: they
 * lose what they were doing. Nobody else there: stop at once. `warning`: always ask, saying this
 * (a browser a script holds).
 */
export function StopBrowserButton({
  teamId,
  instanceId,
  name,
  others,
  size,
  label = 'Stop',
  after = 'list',
  warning,
}: {
  teamId: string;
  instanceId: string;
  name: string;
  others: readonly Onlooker[];
  size?: 'sm';
  label?: string;
  after?: 'list' | 'stay';
  warning?: string;
}) {
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  const stop = useMutation({
    mutationFn: () => api('DELETE', `/api/teams/${teamId}/browsers/${instanceId}`),
    onSuccess: () => {
      setAsking(false);
      if (after === 'list') router.push(`/teams/${teamId}/browsers`);
    },
  });
  const error = stop.error ? (stop.error instanceof ApiError ? stop.error.message : 'Could not stop it.') : null;
  return (
    <div className="stack" style={{ alignItems: 'flex-end' }}>
      <Button
        variant="danger"
        size={size}
        busy={stop.isPending && !asking}
        onClick={() => (warning || others.length ? setAsking(true) : stop.mutate())}
        aria-label={`Stop ${name}`}
      >
        {label}
      </Button>
      <Dialog
        open={asking}
        onClose={() => setAsking(false)}
        title={`Stop ${name}?`}
        description={warning ?? `${onlookersText(others)}. They will see that it ended, and whatever the page held is gone.`}
        footer={
          <>
            <Button onClick={() => setAsking(false)}>Keep it running</Button>
            <Button variant="danger" busy={stop.isPending} onClick={() => stop.mutate()}>
              Stop it
            </Button>
          </>
        }
      >
        {error && <p role="alert">{error}</p>}
      </Dialog>
      {error && !asking && (
        <span role="alert" className="muted">
          {error}
        </span>
      )}
    </div>
  );
}
