'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import { api, ApiError } from '#app/_lib/client-api.ts';
import { Button } from '#app/_ui/button.tsx';

export function StopBrowserButton({ teamId, instanceId, name }: { teamId: string; instanceId: string; name: string }) {
  const router = useRouter();
  const stop = useMutation({
    mutationFn: () => api('DELETE', `/api/teams/${teamId}/browsers/${instanceId}`),
    onSuccess: () => router.push(`/teams/${teamId}/browsers`),
  });
  return (
    <div className="stack" style={{ alignItems: 'flex-end' }}>
      <Button variant="danger" busy={stop.isPending} onClick={() => stop.mutate()} aria-label={`Stop ${name}`}>
        Stop browser
      </Button>
      {stop.error && (
        <span role="alert" className="muted">
          {stop.error instanceof ApiError ? stop.error.message : 'Could not stop it.'}
        </span>
      )}
    </div>
  );
}
