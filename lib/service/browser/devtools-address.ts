import { BadRequest } from '#shared/errors.ts';
import { isBrowserId } from '#shared/protocol/start.ts';
import type { ChromiumVersion } from './chromium.ts';
import type { Instance } from './fleet.ts';

/**
 * The /json/version answer for an instance: Chromium's own, with the address rewritten to ours, and
 * `connectUrl`, the same address with the browser's connect ticket for clients that cannot send headers.
 */
export function publicVersion(instance: Instance, publicWsUrl: string, ticket: string): ChromiumVersion & { connectUrl: string } {
  const address = `${publicWsUrl}/devtools/browser/${instance.browser.guid}`;
  return { ...instance.browser.version, webSocketDebuggerUrl: address, connectUrl: `${address}?ticket=${encodeURIComponent(ticket)}` };
}

/** Validate the X-Browser-ID header's value. */
export function requireBrowserId(header: string | string[] | undefined): string {
  if (header === undefined || header === '') throw new BadRequest('missing X-Browser-ID header');
  if (Array.isArray(header)) throw new BadRequest('send exactly one X-Browser-ID header');
  const id = header.trim();
  if (!isBrowserId(id)) throw new BadRequest('malformed X-Browser-ID: expected the br_... id sent on /start');
  return id;
}

export type DevtoolsTarget = { kind: 'browser' | 'page'; id: string };

/** `/devtools/browser/<guid>` or `/devtools/page/<targetId>`; null for anything else. */
export function parseDevtoolsPath(pathname: string): DevtoolsTarget | null {
  const m = /^\/devtools\/(browser|page)\/([A-Za-z0-9-]{1,64})$/.exec(pathname);
  return m?.[1] && m[2] ? { kind: m[1] as 'browser' | 'page', id: m[2] } : null;
}
