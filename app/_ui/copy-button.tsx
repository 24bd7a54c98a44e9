'use client';
import { useState } from 'react';
import { Button } from './button.tsx';

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      size="sm"
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : label}
      <span className="sr-only" aria-live="polite">
        {copied ? ' to clipboard' : ''}
      </span>
    </Button>
  );
}
