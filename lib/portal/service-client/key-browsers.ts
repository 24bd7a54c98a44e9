import { z } from 'zod';
import { DomainError } from '#shared/errors.ts';

/**
 * The service's list of a key's browsers and its stop (docs/api.md, "Listing and stopping a key's
 * browsers"), as any client would call them. Every answer is validated: a service of another
 * version, or something else at that address, gives a clear error instead of a half-read list.
 */
const listed = z.object({
  browsers: z.array(
    z.object({
      id: z.string().regex(/^br_[A-Za-z0-9_-]{32}$/),
      status: z.enum(['live', 'ending', 'ended']),
      startedAt: z.iso.datetime(),
      page: z.object({ url: z.string().max(8192), title: z.string().max(2048) }).nullable(),
      tabs: z.number().int().min(0),
    }),
  ),
});

/** A live browser of one key, started by whoever holds the key. */
export type KeyBrowser = { id: string; startedAt: number; url: string; title: string; tabs: number };

const TIMEOUT_MS = 3000;

/** The key's live browsers; null when the service does not accept the key (revoked there, or another service's). */
export async function listKeyBrowsers(serviceUrl: string, apiKey: string): Promise<KeyBrowser[] | null> {
  const res = await call(serviceUrl, '/v0/browsers?status=live', 'GET', apiKey);
  if (res.status === 401) return null;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} to the list of browsers`);
  const body = listed.safeParse(await res.json().catch(() => null));
  if (!body.success) throw new DomainError('upstream_failed', 'the service sent a list of browsers this portal cannot read');
  return body.data.browsers
    .filter((b) => b.status === 'live')
    .map((b) => ({ id: b.id, startedAt: Date.parse(b.startedAt), url: b.page?.url ?? '', title: b.page?.title ?? '', tabs: b.tabs }));
}

/** End one of the key's browsers. False when the service does not know it (already ended, or another key's). */
export async function stopKeyBrowser(serviceUrl: string, apiKey: string, id: string): Promise<boolean> {
  const res = await call(serviceUrl, `/v0/browsers/${encodeURIComponent(id)}`, 'DELETE', apiKey);
  if (res.status === 404) return false;
  if (!res.ok) throw new DomainError('upstream_failed', `the service answered ${res.status} when asked to stop a browser`);
  return true;
}

async function call(serviceUrl: string, path: string, method: string, apiKey: string): Promise<Response> {
  try {
    return await fetch(`${serviceUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new DomainError('unavailable', 'the browser service cannot be reached');
  }
}
