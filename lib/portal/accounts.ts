import { burnPasswordCheck, hashPassword, verifyPassword } from '../crypto/password.ts';
import type { PortalData, User } from '../db/portal-data.ts';
import { Conflict, Forbidden, ValidationFailed } from './errors.ts';
import { newId } from './ids.ts';
import { fieldErrors, signUpSchema } from './schemas.ts';
import type { SignInThrottle } from './throttle.ts';

export type PublicUser = { id: string; email: string; name: string };
export const publicUser = (u: User): PublicUser => ({ id: u.id, email: u.email, name: u.name });

async function createWithPersonalTeam(data: PortalData, fields: { email: string; name: string; passwordHash: string | null }, via: string): Promise<User> {
  const now = Date.now();
  const user: User = { id: newId('usr'), ...fields, currentTeamId: null, createdAt: now, sessionVersion: 0 };
  const team = { id: newId('team'), name: `${fields.name.split(' ')[0] || fields.name}'s team`.slice(0, 60), personal: true, createdAt: now };
  await data.createUser(user, team, { actorId: user.id, action: 'team.created', subject: team.name, detail: { personal: true, via } });
  return { ...user, currentTeamId: team.id };
}

/** Create an account with a password; its personal team comes with it. */
export async function signUp(data: PortalData, input: unknown, opts: { enabled: boolean }): Promise<PublicUser> {
  if (!opts.enabled) throw new Forbidden('sign-up is switched off on this deployment; ask an administrator for an invitation');
  const parsed = signUpSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationFailed(Object.entries(fieldErrors(parsed.error)).map(([field, message]) => ({ field, message })), 'Check the highlighted fields.');
  }
  const { email, name, password } = parsed.data;
  if (await data.userByEmail(email)) {
    throw new ValidationFailed([{ field: 'email', message: 'An account with this email already exists. Sign in instead.' }], 'That email is taken.');
  }
  const user = await createWithPersonalTeam(data, { email, name, passwordHash: await hashPassword(password) }, 'password');
  return publicUser(user);
}

/** Thrown (and shown) for any wrong email or password: the message never says which. */
export const WRONG_CREDENTIALS = 'Wrong email or password.';

/** Check email and password under the throttle. Returns the user, or throws with a message fit to show. */
export async function signInWithPassword(
  data: PortalData, throttle: SignInThrottle, input: { email: unknown; password: unknown }, address: string | null,
): Promise<PublicUser> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  if (!email || !password) throw new Error(WRONG_CREDENTIALS);
  await throttle.before(email, address);
  const user = await data.userByEmail(email);
  const ok = user?.passwordHash ? await verifyPassword(password, user.passwordHash) : (await burnPasswordCheck(password), false);
  if (!ok || !user) {
    await throttle.failed(email, address);
    throw new Error(WRONG_CREDENTIALS);
  }
  await throttle.succeeded(email);
  return publicUser(user);
}

export type OAuthProfile = { provider: string; providerAccountId: string; email: string | null; name: string | null };

/**
 * Sign-in through OAuth / OpenID Connect. A known account link signs in its user; a new
 * address gets a new user with a personal team. An address that already has an account is
 * not linked automatically (that would let whoever controls the provider take it over).
 */
export async function signInWithOAuth(data: PortalData, p: OAuthProfile, opts: { signupEnabled: boolean }): Promise<PublicUser> {
  const linked = await data.userByAccount(p.provider, p.providerAccountId);
  if (linked) return publicUser(linked);
  if (!opts.signupEnabled) throw new Forbidden('Sign-up is switched off on this deployment.');
  const email = p.email?.trim().toLowerCase();
  if (!email) throw new Error('The provider did not share an email address; allow it and try again.');
  if (await data.userByEmail(email)) throw new Conflict('An account with this email already exists. Sign in with your password.');
  const user = await createWithPersonalTeam(data, { email, name: (p.name?.trim() || email.split('@')[0] || email).slice(0, 100), passwordHash: null }, p.provider);
  await data.linkAccount(p.provider, p.providerAccountId, user.id, Date.now());
  return publicUser(user);
}
