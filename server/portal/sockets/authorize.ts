import type { IncomingMessage } from 'node:http';
import type { AccessChange } from '#portal/data/portal-data.ts';
import { Forbidden, SignInRequired } from '#portal/errors.ts';

/** Who opened a socket, with the session version they signed in under. */
export type SignedInUser = { userId: string; name: string; sessionVersion: number };

/** Whether a socket's user may still use it: yes, their session has ended, or they left the team. */
export type Access = 'ok' | 'signed-out' | 'not-member';

/** How the portal's sockets learn who is connecting, and when that changes. */
export type SocketAuth = {
  /** The signed-in user of an upgrade request (session cookie), or null. */
  authenticate: (req: IncomingMessage) => Promise<SignedInUser | null>;
  /** Origins allowed to open the portal's sockets (its own). */
  allowedOrigins: (req: IncomingMessage) => string[];
  /** The user's access to a team's socket now (their session still good, still a member). */
  recheck: (user: SignedInUser, teamId: string) => Promise<Access>;
  /** Every access change as it is committed; returns the unsubscribe. */
  onAccessChange: (listener: (change: AccessChange) => void) => () => void;
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
