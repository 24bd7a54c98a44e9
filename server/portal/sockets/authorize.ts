import type { IncomingMessage } from 'node:http';
import { Forbidden, SignInRequired } from '../../../lib/portal/errors.ts';

export type SignedInUser = { userId: string; name: string };

/** How the portal's sockets learn who is connecting. */
export type SocketAuth = {
  /** The signed-in user of an upgrade request (session cookie), or null. */
  authenticate: (req: IncomingMessage) => Promise<SignedInUser | null>;
  /** Origins allowed to open the portal's sockets (its own). */
  allowedOrigins: (req: IncomingMessage) => string[];
};

/**
 * The check every portal socket makes before its handshake: a browser page of the portal's own
 * origin (cross-site WebSocket hijacking is refused), and a signed-in user.
 */
export async function authorizeUpgrade(req: IncomingMessage, auth: SocketAuth): Promise<SignedInUser> {
  const origin = req.headers.origin;
  if (!origin || !auth.allowedOrigins(req).includes(origin)) throw new Forbidden('cross-origin connections are not allowed');
  const user = await auth.authenticate(req);
  if (!user) throw new SignInRequired();
  return user;
}
