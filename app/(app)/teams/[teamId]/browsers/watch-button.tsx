'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation.js';
import type { BrowserRow } from '#portal/protocol/dashboard.ts';
import { api } from '#app/_lib/client-api.ts';
import { Button } from '#app/_ui/button.tsx';

/** Open a script's browser in the live view: the portal attaches to it, and it stays the script's. */
export function WatchBrowserButton({ teamId, browserId }: { teamId: string; browserId: string }) {
  const router = useRouter();
  const watch = useMutation({
    mutationFn: () => api<{ browser: BrowserRow }>('POST', `/api/teams/${teamId}/browsers/${browserId}/watch`),
    onSuccess: ({ browser }) => router.push(`/teams/${teamId}/browsers/${browser.id}?mode=watch`),
  });
  return (
    <>
      <Button size="sm" busy={watch.isPending} onClick={() => watch.mutate()}>
        Watch
      </Button>
      {watch.error && (
        <span role="alert" className="field-error">
          {watch.error.message}
        </span>
      )}
    </>
  );
}
