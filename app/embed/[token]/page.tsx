import type { Metadata } from 'next';
import { LINK_STATUS_TEXT, resolveLiveLink } from '#portal/live/links.ts';
import { portal } from '#portal/runtime.ts';
import { AuthShell } from '#app/_auth/auth-shell.tsx';
import { Alert } from '#app/_ui/alert.tsx';
import { EmbeddedBrowser } from './embedded.tsx';
import './embed.css';

export const metadata: Metadata = { title: 'Shared browser', robots: { index: false, follow: false } };

/**
 * A shared link to a live browser (docs/decisions/0071): anyone holding it sees the browser, here
 * or framed in another site's page, with no account; a link that gives control lets them ask for
 * it. A link that opens nothing says why, in words.
 */
export default async function EmbedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const state = await resolveLiveLink(portal().data, portal().browsers, token);
  if (state.status !== 'open') {
    const { title, detail } = LINK_STATUS_TEXT[state.status];
    return (
      <AuthShell title={title} subtitle={detail} footer={null}>
        <Alert tone={state.status === 'invalid' ? 'error' : 'warning'}>{title}.</Alert>
      </AuthShell>
    );
  }
  return (
    <main id="main" className="embed">
      <EmbeddedBrowser token={token} name={state.at.row.name} mode={state.link.mode} />
    </main>
  );
}
