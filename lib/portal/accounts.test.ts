import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signInWithOAuth, signInWithPassword, signUp, WRONG_CREDENTIALS } from './accounts.ts';
import { memoryData } from './test-support.ts';
import { SignInThrottle } from './throttle.ts';

const status = (p: Promise<unknown>) => p.then(() => 200, (e: { status?: number }) => e.status ?? 500);

describe('accounts', () => {
  it('sign up stores a scrypt hash, never the password, and refuses short passwords and taken addresses', async () => {
    const data = memoryData();
    const u = await signUp(data, { name: 'Ann', email: ' Ann@Example.TEST ', password: 'long enough password' }, { enabled: true });
    assert.equal(u.email, 'ann@example.test');
    const stored = await data.userById(u.id);
    assert.match(stored?.passwordHash ?? '', /^scrypt\$/);
    assert.ok(!JSON.stringify(stored).includes('long enough password'));
    assert.equal(await status(signUp(data, { name: 'A', email: 'b@example.test', password: 'short' }, { enabled: true })), 400);
    assert.equal(await status(signUp(data, { name: 'A', email: 'ann@example.test', password: 'long enough password' }, { enabled: true })), 400);
    assert.equal(await status(signUp(data, { name: 'C', email: 'c@example.test', password: 'long enough password' }, { enabled: false })), 403);
  });

  it('signs in with the right password only, with one message for every failure', async () => {
    const data = memoryData();
    const throttle = new SignInThrottle(data, { maxFailures: 10, maxFailuresPerAddress: 10, lockMs: 60_000 }, { sleep: async () => {} });
    await signUp(data, { name: 'Ann', email: 'ann@example.test', password: 'long enough password' }, { enabled: true });
    assert.equal((await signInWithPassword(data, throttle, { email: 'ANN@example.test', password: 'long enough password' }, null)).email, 'ann@example.test');
    await assert.rejects(signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'wrong password!!' }, null), new RegExp(WRONG_CREDENTIALS));
    await assert.rejects(signInWithPassword(data, throttle, { email: 'nobody@example.test', password: 'long enough password' }, null), new RegExp(WRONG_CREDENTIALS));
  });

  it('OAuth: creates once, signs the linked user in again, never takes over a password account', async () => {
    const data = memoryData();
    const on = { signupEnabled: true };
    const first = await signInWithOAuth(data, { provider: 'oidc', providerAccountId: 'sub-1', email: 'sso@example.test', name: 'Sso' }, on);
    const again = await signInWithOAuth(data, { provider: 'oidc', providerAccountId: 'sub-1', email: 'changed@example.test', name: 'Sso' }, on);
    assert.equal(again.id, first.id);
    assert.equal((await data.teamsOf(first.id)).filter((t) => t.personal).length, 1);
    await signUp(data, { name: 'Pw', email: 'pw@example.test', password: 'long enough password' }, { enabled: true });
    assert.equal(await status(signInWithOAuth(data, { provider: 'github', providerAccountId: '9', email: 'PW@example.test', name: null }, on)), 409);
    await assert.rejects(signInWithOAuth(data, { provider: 'github', providerAccountId: '10', email: null, name: null }, on), /did not share an email/);
    assert.equal(await status(signInWithOAuth(data, { provider: 'github', providerAccountId: '11', email: 'new@example.test', name: null }, { signupEnabled: false })), 403);
  });
});
