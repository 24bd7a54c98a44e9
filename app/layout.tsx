import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { themeOf } from './_lib/theme.ts';
import { Providers } from './providers.tsx';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Periscope', template: '%s · Periscope' },
  description: 'Self-hostable cloud browsers and web search.',
};

// Every page depends on the session or the configuration: render per request.
export const dynamic = 'force-dynamic';

export default async function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" data-theme={await themeOf()}>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
