'use client';
import { signIn } from 'next-auth/react';
import { useState } from 'react';
import { Button } from '../_ui/button.tsx';

export function OAuthButtons({ providers, callbackUrl }: { providers: { id: string; name: string }[]; callbackUrl: string }) {
  const [busy, setBusy] = useState<string | null>(null);
  if (!providers.length) return null;
  return (
    <div className="stack-sm">
      {providers.map((p) => (
        <Button
          key={p.id}
          block
          busy={busy === p.id}
          onClick={() => {
            setBusy(p.id);
            void signIn(p.id, { callbackUrl });
          }}
        >
          Continue with {p.name}
        </Button>
      ))}
      <div className="divider">or</div>
    </div>
  );
}
