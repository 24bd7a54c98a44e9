import type { IncomingMessage } from 'node:http';
import { allowedOrigins } from '#portal/origins.ts';
import { getToken } from 'next-auth/jwt';
import type { Portal } from '#portal/runtime.ts';
import { userOfSession } from '#portal/accounts/sessions.ts';
import type { Access, SignedInUser } from './sockets/authorize.ts';

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

/** The signed-in user of a WebSocket upgrade, from next-auth's session cookie; re-read and version-checked. */
export async function sessionUser(p: Portal, req: IncomingMessage): Promise<SignedInUser | null> {
  const token = await getToken({
    req: { headers: req.headers, cookies: cookies(req.headers.cookie) } as never,
    secret: p.authSecret,
  }).catch(() => null);
  const user = await userOfSession(p.data, token);
  return user ? { userId: user.id, name: user.name || user.email, sessionVersion: user.sessionVersion } : null;
}

/** Whether a socket's user still has the session they connected with, and is still in the team. */
export async function recheckAccess(p: Portal, user: SignedInUser, teamId: string): Promise<Access> {
  if (!(await userOfSession(p.data, { uid: user.userId, sv: user.sessionVersion }))) return 'signed-out';
  return (await p.data.membership(teamId, user.userId)) ? 'ok' : 'not-member';
}

/** Origins that may open the portal's sockets: the configured public address and the one the request came to. */
export function sameOrigins(p: Portal, req: IncomingMessage): string[] {
  const proto = req.headers['x-forwarded-proto'];
  return allowedOrigins(p.config, req.headers.host, Array.isArray(proto) ? proto[0] : proto);
}
