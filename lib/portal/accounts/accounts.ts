import { createHash, randomBytes } from 'node:crypto';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../crypto/password.ts';
import { EmailTakenError, LastOwnerError, type PortalData, type User } from '../data/portal-data.ts';
import type { Actor } from '../teams/access.ts';
import { BadRequest, Conflict, Forbidden, SignInRequired, ValidationFailed } from '../errors.ts';
import { newId } from '../data/ids.ts';
import type { KeyIssuer } from '../keys/issuer.ts';
import { deleteAccountSchema, passwordChangeSchema, profileSchema, resetPasswordSchema, signUpSchema } from '../schemas.ts';
import { parseOrThrow } from '../validation.ts';
import type { SignInThrottle } from './throttle.ts';

export type PublicUser = { id: string; email: string; name: string };
export const publicUser = (u: User): PublicUser => ({ id: u.id, email: u.email, name: u.name });

async function createWithPersonalTeam(
  data: PortalData,
  fields: { email: string; name: string; passwordHash: string | null },
  via: string,
): Promise<User> {
  const now = Date.now();
  const user: User = { id: newId('usr'), ...fields, currentTeamId: null, createdAt: now, sessionVersion: 0 };
  const team = {
    id: newId('team'),
    name: `${fields.name.split(' ')[0] || fields.name}'s team`.slice(0, 60),
    personal: true,
    createdAt: now,
  };
  await data.createUser(user, team, { actorId: user.id, action: 'team.created', subject: team.name, detail: { personal: true, via } });
  return { ...user, currentTeamId: team.id };
}

/**
 * Create an account with a password; its personal team comes with it. The answer is the same
 * whether or not the address already has an account (the same work is done, and a taken address
 * counts as a failed attempt of the client's address, like a wrong password), so sign-up tells
 * nobody who is registered; the page then signs in, which works only for the account's owner.
 */
export async function signUp(
  data: PortalData,
  input: unknown,
  opts: { enabled: boolean; throttle?: SignInThrottle; address?: string | null },
): Promise<{ ok: true }> {
  if (!opts.enabled) throw new Forbidden('sign-up is switched off on this deployment; ask an administrator for an invitation');
  const { email, name, password } = parseOrThrow(signUpSchema, input);
  const address = opts.address ?? null;
  await opts.throttle?.before(null, address);
  const passwordHash = await hashPassword(password);
  if (await data.userByEmail(email)) {
    await opts.throttle?.failed(null, address);
    return { ok: true };
  }
  try {
    await createWithPersonalTeam(data, { email, name, passwordHash }, 'password');
  } catch (err) {
    // Two sign-ups of one address at once: the loser is answered like any taken address.
    if (!(err instanceof EmailTakenError)) throw err;
  }
  return { ok: true };
}

/** Thrown (and shown) for any wrong email or password: the message never says which. */
export const WRONG_CREDENTIALS = 'Wrong email or password.';

/** Check email and password under the throttle. Returns the user, or throws with a message fit to show. */
export async function signInWithPassword(
  data: PortalData,
  throttle: SignInThrottle,
  input: { email: unknown; password: unknown },
  address: string | null,
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
  const user = await createWithPersonalTeam(
    data,
    { email, name: (p.name?.trim() || email.split('@')[0] || email).slice(0, 100), passwordHash: null },
    p.provider,
  );
  await data.linkAccount(p.provider, p.providerAccountId, user.id, Date.now());
  return publicUser(user);
}

export type AccountDeps = { data: PortalData; throttle: SignInThrottle };

async function me(data: PortalData, actor: Actor): Promise<User> {
  const user = await data.userById(actor.userId);
  if (!user) throw new SignInRequired();
  return user;
}

/**
 * A password typed to confirm a change is checked under the sign-in throttle, so a session left
 * open somewhere is no way to guess it; a wrong one is a field error.
 */
async function confirmPassword(
  deps: AccountDeps,
  user: User,
  password: string | undefined,
  address: string | null,
  field: string,
): Promise<void> {
  if (!user.passwordHash) return;
  await deps.throttle.before(user.email, address);
  if (password && (await verifyPassword(password, user.passwordHash))) return;
  await deps.throttle.failed(user.email, address);
  throw new ValidationFailed([{ field, message: 'That is not your current password.' }], 'Check the highlighted fields.');
}

/** Change your name or email; a new email needs the current password (when the account has one). */
export async function updateProfile(deps: AccountDeps, actor: Actor, input: unknown, address: string | null): Promise<PublicUser> {
  const change = parseOrThrow(profileSchema, input);
  const user = await me(deps.data, actor);
  const email = change.email !== undefined && change.email !== user.email ? change.email : undefined;
  if (email) await confirmPassword(deps, user, change.currentPassword, address, 'currentPassword');
  try {
    await deps.data.updateUser(user.id, { name: change.name, email });
  } catch (err) {
    if (!(err instanceof EmailTakenError || (err as Error).name === 'EmailTakenError')) throw err;
    // As costly to ask as a wrong password, so accounts cannot be listed this way.
    await deps.throttle.failed(null, address);
    throw new ValidationFailed(
      [{ field: 'email', message: 'That address cannot be used. Choose another.' }],
      'Check the highlighted fields.',
    );
  }
  return publicUser(await me(deps.data, actor));
}

/**
 * Set a new password (the current one first, when the account has one). Every session of the
 * account ends, this one included; the page signs in again with the new password.
 */
export async function changePassword(deps: AccountDeps, actor: Actor, input: unknown, address: string | null): Promise<void> {
  const { currentPassword, newPassword } = parseOrThrow(passwordChangeSchema, input);
  const user = await me(deps.data, actor);
  await confirmPassword(deps, user, currentPassword, address, 'currentPassword');
  await deps.data.updateUser(user.id, { passwordHash: await hashPassword(newPassword) });
}

/** End every session of the signed-in account ("sign out everywhere"). */
export async function endAllSessions(data: PortalData, actor: Actor): Promise<void> {
  await data.endSessions((await me(data, actor)).id);
}

/**
 * Delete your account. Teams you alone are in go with it: their keys are revoked at the service
 * too and their browsers stopped. From other teams you leave. Refused while you are the only owner
 * of a team with other members: make someone else an owner first.
 */
export async function deleteAccount(
  deps: AccountDeps & { issuer: KeyIssuer; stopBrowsers: (teamIds: readonly string[]) => void },
  actor: Actor,
  input: unknown,
  address: string | null,
): Promise<{ deletedTeams: number; leftTeams: number }> {
  const { password, confirmEmail } = parseOrThrow(deleteAccountSchema, input);
  const user = await me(deps.data, actor);
  if (user.passwordHash) await confirmPassword(deps, user, password, address, 'password');
  else if (confirmEmail?.trim().toLowerCase() !== user.email) {
    throw new ValidationFailed(
      [{ field: 'confirmEmail', message: 'Type your email address to confirm.' }],
      'Check the highlighted fields.',
    );
  }
  const teams = await deps.data.teamsOf(user.id);
  const alone: string[] = [];
  const stranded: string[] = [];
  const serviceKeys: string[] = [];
  for (const team of teams) {
    const members = await deps.data.members(team.id);
    if (members.length === 1) {
      alone.push(team.id);
      for (const key of await deps.data.keys(team.id)) if (key.serviceKeyId && key.revokedAt === null) serviceKeys.push(key.serviceKeyId);
    } else if (team.role === 'owner' && !members.some((m) => m.userId !== user.id && m.role === 'owner')) {
      stranded.push(team.name);
    }
  }
  const refuse = (names: readonly string[]) =>
    new Conflict(
      `You are the only owner of ${names.map((n) => `"${n}"`).join(', ')}. Make someone else an owner there (or remove the other members) first.`,
    );
  if (stranded.length) throw refuse(stranded);
  try {
    await deps.data.deleteUser(user.id, Date.now());
  } catch (err) {
    if (err instanceof LastOwnerError || (err as Error).name === 'LastOwnerError') throw refuse((err as LastOwnerError).teams);
    throw err;
  }
  if (deps.issuer.available) for (const id of serviceKeys) await deps.issuer.revoke(id);
  deps.stopBrowsers(alone);
  return { deletedTeams: alone.length, leftTeams: teams.length - alone.length };
}

const RESET_TTL_MS = 60 * 60_000;
const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** An operator's one-time reset link for an account (no email needed): valid for an hour, once. */
export async function issuePasswordReset(
  data: PortalData,
  email: string,
  publicUrl: string,
  now = Date.now(),
): Promise<{ url: string; expiresAt: number } | null> {
  const user = await data.userByEmail(email.trim().toLowerCase());
  if (!user) return null;
  const token = randomBytes(32).toString('base64url');
  await data.createPasswordReset({
    tokenHash: hashToken(token),
    userId: user.id,
    createdAt: now,
    expiresAt: now + RESET_TTL_MS,
    usedAt: null,
  });
  return { url: new URL(`/reset/${token}`, publicUrl).toString(), expiresAt: now + RESET_TTL_MS };
}

/** Use a reset link: a new password, every old session ended, the sign-in lock lifted. */
export async function resetPassword(data: PortalData, input: unknown): Promise<{ email: string }> {
  const { token, password } = parseOrThrow(resetPasswordSchema, input);
  const user = await data.usePasswordReset(hashToken(token), await hashPassword(password), Date.now());
  if (!user)
    throw new BadRequest(
      'This reset link is not valid any more: it was used, it expired, or it was never issued. Ask an operator for a new one.',
    );
  return { email: user.email };
}
