import type { IncomingMessage } from 'node:http';
import { getToken } from 'next-auth/jwt';
import type { Portal } from '../../lib/portal/runtime.ts';

function cookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      // a malformed cookie is ignored, like a browser would
    }
  }
  return out;
}

/** The signed-in user of a WebSocket upgrade, from next-auth's session cookie; re-read from the database. */
export async function sessionUser(p: Portal, req: IncomingMessage): Promise<{ userId: string; name: string } | null> {
  const token = await getToken({ req: { headers: req.headers, cookies: cookies(req.headers.cookie) } as never, secret: p.authSecret }).catch(() => null);
  const uid = typeof token?.uid === 'string' ? token.uid : null;
  if (!uid) return null;
  const user = await p.data.userById(uid);
  return user ? { userId: user.id, name: user.name || user.email } : null;
}

/** Origins that may open the portal's sockets: the configured public address and the one the request came to. */
export function sameOrigins(p: Portal, req: IncomingMessage): string[] {
  const origins = [new URL(p.config.publicUrl).origin];
  const host = req.headers.host;
  if (host) {
    const proto = p.config.trustProxy ? String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim() || 'http' : 'http';
    origins.push(`${proto}://${host}`);
  }
  return origins;
}
