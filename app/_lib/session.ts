import { getServerSession, type NextAuthOptions } from 'next-auth';
import { publicUser, type PublicUser } from '#portal/accounts/accounts.ts';
import type { Actor } from '#portal/teams/access.ts';
import { authOptions } from '#portal/accounts/auth.ts';
import { portal, type Portal } from '#portal/runtime.ts';

const optionsCache = new WeakMap<Portal, NextAuthOptions>();

/** next-auth's options for this process (built once). */
export function auth(p: Portal = portal()): NextAuthOptions {
  let options = optionsCache.get(p);
  if (!options) optionsCache.set(p, (options = authOptions(p)));
  return options;
}

export type Signed = { portal: Portal; user: PublicUser; actor: Actor };

/**
 * The server-side half of the session check (proxy.ts is the first): the signed-in user,
 * re-read from the database so a deleted account is signed out at once, or null.
 */
export async function signedIn(): Promise<Signed | null> {
  const p = portal();
  const session = await getServerSession(auth(p));
  const id = (session?.user as { id?: string } | undefined)?.id;
  if (!id) return null;
  const user = await p.data.userById(id);
  return user ? { portal: p, user: publicUser(user), actor: { userId: user.id } } : null;
}
