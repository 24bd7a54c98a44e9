import type { PortalData, User } from '../data/portal-data.ts';

/**
 * What the portal puts in next-auth's session token: the user id and the user's session version
 * at sign-in. Sign-out, a new password, a reset, an operator's "sign out everywhere" and account
 * deletion bump the version, and with it every token signed before is dead (decision 0024).
 */
export type SessionClaims = { readonly [claim: string]: unknown; uid?: unknown; sv?: unknown };

/** The user a session token stands for, if the token is still good; checked on every request and socket. */
export async function userOfSession(data: PortalData, claims: SessionClaims | null | undefined): Promise<User | undefined> {
  if (typeof claims?.uid !== 'string' || typeof claims.sv !== 'number') return undefined;
  const user = await data.userById(claims.uid);
  return user && user.sessionVersion === claims.sv ? user : undefined;
}
