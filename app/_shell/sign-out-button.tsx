'use client';
import { signOut } from 'next-auth/react';
import { useState } from 'react';
import { Button } from '../_ui/button.tsx';

export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      size="sm"
      busy={busy}
      onClick={() => {
        setBusy(true);
        void signOut({ callbackUrl: '/signin' });
      }}
    >
      Sign out
    </Button>
  );
}
