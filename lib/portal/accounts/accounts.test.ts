import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyPassword } from '../crypto/password.ts';
import type { PortalData } from '../data/portal-data.ts';
import {
  changePassword,
  deleteAccount,
  endAllSessions,
  issuePasswordReset,
  resetPassword,
  signInWithOAuth,
  signInWithPassword,
  signUp,
  updateProfile,
  WRONG_CREDENTIALS,
} from './accounts.ts';
import { userOfSession } from './sessions.ts';
import type { Actor } from '../teams/access.ts';
import { acceptInvite, createInvite } from '../teams/invites.ts';
import { changeRole, createTeam } from '../teams/teams.ts';
import { account, memoryData, memoryVault } from '../../../tests/helpers/portal-doubles.ts';
import { SignInThrottle } from './throttle.ts';
import { addKey } from '../keys/vault.ts';

/** `who` joins `teamId` through an invitation `inviter` made (the real path). */
async function join(data: PortalData, teamId: string, inviter: Actor, who: Actor): Promise<void> {
  const { token } = await createInvite(data, inviter, teamId, { role: 'member' }, 3_600_000);
  assert.equal((await acceptInvite(data, who, token)).teamId, teamId);
}

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? 500,
  );
const PASSWORD = 'long enough password';
const throttleOf = (data: PortalData, maxFailuresPerAddress = 10) =>
  new SignInThrottle(data, { maxFailures: 10, maxFailuresPerAddress, lockMs: 60_000 }, { sleep: async () => {} });

describe('accounts', () => {
  it('sign up stores a scrypt hash, never the password, and refuses short passwords', async () => {
    const data = memoryData();
    assert.deepEqual(await signUp(data, { name: 'Ann', email: ' Ann@Example.TEST ', password: PASSWORD }, { enabled: true }), { ok: true });
    const stored = await data.userByEmail('ann@example.test');
    assert.match(stored?.passwordHash ?? '', /^scrypt\$/);
    assert.ok(!JSON.stringify(stored).includes(PASSWORD));
    assert.equal(await status(signUp(data, { name: 'A', email: 'b@example.test', password: 'short' }, { enabled: true })), 400);
    assert.equal(await status(signUp(data, { name: 'C', email: 'c@example.test', password: PASSWORD }, { enabled: false })), 403);
  });

  it('sign up answers a taken address exactly as a new one, changes nothing, and counts it against the client address', async () => {
    const data = memoryData();
    const throttle = throttleOf(data, 3);
    const fresh = await signUp(
      data,
      { name: 'Ann', email: 'ann@example.test', password: PASSWORD },
      { enabled: true, throttle, address: '10.0.0.9' },
    );
    const before = await data.userByEmail('ann@example.test');
    const taken = await signUp(
      data,
      { name: 'Mallory', email: 'ann@example.test', password: 'another long password' },
      { enabled: true, throttle, address: '10.0.0.9' },
    );
    assert.deepEqual(taken, fresh, 'the same answer');
    assert.deepEqual(await data.userByEmail('ann@example.test'), before, 'the account is untouched');
    assert.equal((await data.failures('addr:10.0.0.9'))?.failures, 1);
    assert.equal(await data.failures('email:ann@example.test'), undefined, 'the owner is not locked out by it');
    await signUp(
      data,
      { name: 'M', email: 'ann@example.test', password: PASSWORD },
      { enabled: true, throttle, address: '10.0.0.9' },
    ).catch(() => null);
    assert.equal(
      await status(
        signUp(data, { name: 'M', email: 'ann@example.test', password: PASSWORD }, { enabled: true, throttle, address: '10.0.0.9' }),
      ),
      429,
      'probing is locked like guessing',
    );
  });

  it('signs in with the right password only, with one message for every failure', async () => {
    const data = memoryData();
    const throttle = throttleOf(data);
    await account(data, 'Ann');
    assert.equal(
      (await signInWithPassword(data, throttle, { email: 'ANN@example.test', password: PASSWORD }, null)).email,
      'ann@example.test',
    );
    await assert.rejects(
      signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'wrong password!!' }, null),
      new RegExp(WRONG_CREDENTIALS),
    );
    await assert.rejects(
      signInWithPassword(data, throttle, { email: 'nobody@example.test', password: PASSWORD }, null),
      new RegExp(WRONG_CREDENTIALS),
    );
  });

  it('OAuth: creates once, signs the linked user in again, never takes over a password account', async () => {
    const data = memoryData();
    const on = { signupEnabled: true };
    const first = await signInWithOAuth(data, { provider: 'oidc', providerAccountId: 'sub-1', email: 'sso@example.test', name: 'Sso' }, on);
    const again = await signInWithOAuth(
      data,
      { provider: 'oidc', providerAccountId: 'sub-1', email: 'changed@example.test', name: 'Sso' },
      on,
    );
    assert.equal(again.id, first.id);
    assert.equal((await data.teamsOf(first.id)).filter((t) => t.personal).length, 1);
    await account(data, 'Pw');
    assert.equal(
      await status(signInWithOAuth(data, { provider: 'github', providerAccountId: '9', email: 'PW@example.test', name: null }, on)),
      409,
    );
    await assert.rejects(
      signInWithOAuth(data, { provider: 'github', providerAccountId: '10', email: null, name: null }, on),
      /did not share an email/,
    );
    assert.equal(
      await status(
        signInWithOAuth(
          data,
          { provider: 'github', providerAccountId: '11', email: 'new@example.test', name: null },
          { signupEnabled: false },
        ),
      ),
      403,
    );
  });
});

describe('account settings', () => {
  it('changes the name freely and the email only with the current password, never to a taken address', async () => {
    const data = memoryData();
    const deps = { data, throttle: throttleOf(data) };
    const ann = await account(data, 'Ann');
    await account(data, 'Bob');
    assert.equal((await updateProfile(deps, ann, { name: '  Ann Lee ' }, null)).name, 'Ann Lee');
    assert.equal(await status(updateProfile(deps, ann, { email: 'ann2@example.test' }, null)), 400, 'no password');
    assert.equal(await status(updateProfile(deps, ann, { email: 'ann2@example.test', currentPassword: 'not it at all' }, null)), 400);
    assert.equal((await data.failures('email:ann@example.test'))?.failures, 2, 'wrong confirmations count like wrong sign-ins');
    assert.equal(await status(updateProfile(deps, ann, { email: 'BOB@example.test', currentPassword: PASSWORD }, null)), 400);
    assert.equal((await data.userById(ann.userId))?.email, 'ann@example.test');
    assert.equal(
      (await updateProfile(deps, ann, { email: 'Ann2@Example.test', currentPassword: PASSWORD }, null)).email,
      'ann2@example.test',
    );
    assert.equal(await status(updateProfile(deps, ann, {}, null)), 400, 'nothing to change');
    assert.equal(await status(updateProfile(deps, ann, { name: 'x', admin: true }, null)), 400, 'unknown fields are refused');
  });

  it('a new password ends every session; so does sign out everywhere', async () => {
    const data = memoryData();
    const deps = { data, throttle: throttleOf(data) };
    const ann = await account(data, 'Ann');
    const claims = { uid: ann.userId, sv: (await data.userById(ann.userId))?.sessionVersion };
    assert.ok(await userOfSession(data, claims), 'the session is good');
    assert.equal(await status(changePassword(deps, ann, { currentPassword: 'wrong one', newPassword: 'a brand new password' }, null)), 400);
    assert.ok(await userOfSession(data, claims), 'a refused change ends nothing');
    await changePassword(deps, ann, { currentPassword: PASSWORD, newPassword: 'a brand new password' }, null);
    assert.equal(await userOfSession(data, claims), undefined, 'the old session is dead');
    const user = await data.userById(ann.userId);
    assert.ok(await verifyPassword('a brand new password', user?.passwordHash ?? ''));
    const next = { uid: ann.userId, sv: user?.sessionVersion };
    assert.ok(await userOfSession(data, next));
    await endAllSessions(data, ann);
    assert.equal(await userOfSession(data, next), undefined);
    assert.equal(await userOfSession(data, { uid: ann.userId }), undefined, 'a token without a version is never good');
  });

  it('deletes an account: its own teams go (keys revoked at the service, browsers stopped), other teams keep going', async () => {
    const v = memoryVault();
    const deps = { data: v.data, throttle: throttleOf(v.data), issuer: v.issuer, stopped: [] as string[] };
    const ann = await account(v.data, 'Ann');
    const bob = await account(v.data, 'Bob');
    const shared = await createTeam(v.data, bob, { name: 'Shared' });
    await join(v.data, shared.id, bob, ann);
    const annTeam = (await v.data.teamsOf(ann.userId)).find((t) => t.personal);
    assert.ok(annTeam);
    const key = await addKey(v, ann, annTeam.id, { mode: 'create', name: 'K' });
    const run = (input: unknown) => deleteAccount({ ...deps, stopBrowsers: (ids) => deps.stopped.push(...ids) }, ann, input, null);
    assert.equal(await status(run({ password: 'not the password' })), 400);
    assert.ok(await v.data.userById(ann.userId), 'a wrong password deletes nothing');
    assert.deepEqual(await run({ password: PASSWORD }), { deletedTeams: 1, leftTeams: 1 });
    assert.equal(await v.data.userById(ann.userId), undefined);
    assert.equal(await v.data.team(annTeam.id), undefined, 'the personal team is gone');
    assert.deepEqual(v.issuer.revoked, ['svc1'], 'its issued key is revoked at the service');
    assert.equal(key.key.source, 'issued');
    assert.deepEqual(deps.stopped, [annTeam.id]);
    // A browser of the deleted team that ends afterwards is dropped with the team, not an error.
    await v.data.audit({ teamId: annTeam.id, actorId: null, action: 'browser.ended', subject: 'late' }, Date.now());
    assert.deepEqual(await v.data.auditLog(annTeam.id, { limit: 5 }), []);
    assert.deepEqual(
      (await v.data.members(shared.id)).map((m) => m.userId),
      [bob.userId],
      "Bob's team stays, without Ann",
    );
  });

  it('refuses to delete the only owner of a team others are in, naming the team', async () => {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const bob = await account(v.data, 'Bob');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    await join(v.data, team.id, ann, bob);
    const deps = { data: v.data, throttle: throttleOf(v.data), issuer: v.issuer, stopBrowsers: () => {} };
    await assert.rejects(
      deleteAccount(deps, ann, { password: PASSWORD }, null),
      (e: Error & { status: number }) => e.status === 409 && /"Crew"/.test(e.message),
    );
    assert.ok(await v.data.userById(ann.userId));
    await changeRole(v.data, ann, team.id, bob.userId, { role: 'owner' });
    await deleteAccount(deps, ann, { password: PASSWORD }, null);
    const members = await v.data.members(team.id);
    assert.deepEqual(
      members.map((m) => m.userId),
      [bob.userId],
      'Ann left; the invitation she made is gone with her',
    );
    const log = await v.data.auditLog(team.id, { limit: 10, actions: ['member.left'] });
    assert.equal(log[0]?.actorLabel, 'ann@example.test', 'the log keeps who it was');
    assert.equal(log[0]?.detail.accountDeleted, true);
  });

  it('an account without a password is deleted by typing its email', async () => {
    const v = memoryVault();
    const sso = await signInWithOAuth(
      v.data,
      { provider: 'oidc', providerAccountId: 's', email: 'sso@example.test', name: 'S' },
      { signupEnabled: true },
    );
    const deps = { data: v.data, throttle: throttleOf(v.data), issuer: v.issuer, stopBrowsers: () => {} };
    assert.equal(await status(deleteAccount(deps, { userId: sso.id }, { confirmEmail: 'other@example.test' }, null)), 400);
    await deleteAccount(deps, { userId: sso.id }, { confirmEmail: ' SSO@example.test' }, null);
    assert.equal(await v.data.userById(sso.id), undefined);
  });
});

describe('operator password reset', () => {
  it('issues a one-time link that sets a password, ends sessions and lifts the lock', async () => {
    const data = memoryData();
    const throttle = new SignInThrottle(data, { maxFailures: 2, maxFailuresPerAddress: 100, lockMs: 60_000 }, { sleep: async () => {} });
    const ann = await account(data, 'Ann');
    const claims = { uid: ann.userId, sv: (await data.userById(ann.userId))?.sessionVersion };
    for (let i = 0; i < 2; i++)
      await signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'wrong wrong wrong' }, null).catch(() => null);
    assert.equal(await status(signInWithPassword(data, throttle, { email: 'ann@example.test', password: PASSWORD }, null)), 429, 'locked');
    assert.equal(await issuePasswordReset(data, 'nobody@example.test', 'http://portal.test'), null);
    const reset = await issuePasswordReset(data, 'ANN@example.test', 'http://portal.test/');
    assert.ok(reset);
    const token = /\/reset\/([\w-]{43})$/.exec(reset.url)?.[1] ?? '';
    assert.ok(token, reset.url);
    assert.equal(await status(resetPassword(data, { token, password: 'short' })), 400);
    // Another token: its last character changed (to one it is not: a random token ends in A one time in 64).
    const other = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    assert.equal(await status(resetPassword(data, { token: other, password: 'a fresh long password' })), 400);
    assert.deepEqual(await resetPassword(data, { token, password: 'a fresh long password' }), { email: 'ann@example.test' });
    assert.equal(await userOfSession(data, claims), undefined, 'old sessions ended');
    assert.equal(
      (await signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'a fresh long password' }, null)).id,
      ann.userId,
      'unlocked, new password',
    );
    assert.equal(await status(resetPassword(data, { token, password: 'yet another long one' })), 400, 'once only');
  });

  it('a link expires', async () => {
    const data = memoryData();
    await account(data, 'Ann');
    const reset = await issuePasswordReset(data, 'ann@example.test', 'http://portal.test', Date.now() - 2 * 3_600_000);
    const token = reset?.url.split('/').pop() ?? '';
    assert.equal(await status(resetPassword(data, { token, password: 'a fresh long password' })), 400);
  });
});
