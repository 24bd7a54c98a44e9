'use client';
import linkModule from 'next/link.js';
import type { ComponentProps } from 'react';

// next/link is CommonJS; under NodeNext typings the component sits on .default. Both shapes work.
const NextLink = ((linkModule as unknown as { default?: unknown }).default ?? linkModule) as typeof linkModule.default;

export function Link(props: ComponentProps<typeof NextLink>) {
  return <NextLink {...props} />;
}
