import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openPortalData } from '#portal/data/open.ts';
import type { AccessChange, PortalData } from '#portal/data/portal-data.ts';
import { resetPassword, signInWithPassword } from '#portal/accounts/accounts.ts';
import { account, testStore } from '../helpers/portal-doubles.ts';
import { eventually } from '../helpers/eventually.ts';
import { freshDatabase } from '../helpers/postgres-data.ts';
import { SignInThrottle } from '#portal/accounts/throttle.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The operator command `npm run portal:users`, run for real against a DATA_DIR, or PostgreSQL in its pass. */
describe(`portal:users (${testStore})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-users-cli-'));
  let databaseUrl: string | undefined;
  before(async () => {
    if (testStore === 'postgres') databaseUrl = await freshDatabase();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'server/cli/portal-users.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl ?? '',
        NEXTAUTH_URL: 'https://portal.example.test',
        SIGNIN_MAX_FAILURES: '2',
      },
    });
  const open = () => openPortalData({ dataDir, database: databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'sqlite' } });

  it('unlocks a locked account, and says so when there was nothing to unlock', async () => {
    let data = await open();
    await account(data, 'Ann');
    const throttleOf = (d: PortalData) =>
      new SignInThrottle(d, { maxFailures: 2, maxFailuresPerAddress: 100, lockMs: 3_600_000 }, { sleep: async () => {} });
    let throttle = throttleOf(data);
    for (let i = 0; i < 2; i++)
      await signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'wrong wrong wrong' }, '10.1.1.1').catch(() => null);
    await assert.rejects(
      signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'long enough password' }, null),
      /locked/,
    );
    await data.close();
    const r = run('unlock', 'ANN@example.test');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /unlocked ann@example\.test/);
    data = await open();
    throttle = throttleOf(data);
    assert.equal(
      (await signInWithPassword(data, throttle, { email: 'ann@example.test', password: 'long enough password' }, null)).email,
      'ann@example.test',
    );
    await data.close();
    assert.match(run('unlock', 'ann@example.test').stdout, /had no failed attempts/);
    assert.match(run('unlock', '--address', '10.1.1.1').stdout, /unlocked 10\.1\.1\.1/);
  });

  it('prints a one-time reset link on the public address that sets a new password', async () => {
    const r = run('reset-link', 'ann@example.test');
    assert.equal(r.status, 0, r.stderr);
    const url = /https:\/\/portal\.example\.test\/reset\/([\w-]{43})/.exec(r.stdout);
    assert.ok(url?.[1], r.stdout);
    const data = await open();
    try {
      assert.deepEqual(await resetPassword(data, { token: url[1], password: 'set by the link now' }), { email: 'ann@example.test' });
    } finally {
      await data.close();
    }
  });

  it('signs an account out everywhere', async () => {
    let data = await open();
    const before = (await data.userByEmail('ann@example.test'))?.sessionVersion ?? -1;
    await data.close();
    const r = run('sign-out', 'ann@example.test');
    assert.equal(r.status, 0, r.stderr);
    data = await open();
    assert.equal((await data.userByEmail('ann@example.test'))?.sessionVersion, before + 1);
    await data.close();
  });

  it("tells a running portal's open sockets of a sign-out, though it is another process", async () => {
    const data = await open();
    const heard: AccessChange[] = [];
    const off = data.onAccessChange((c) => heard.push(c));
    try {
      if ('listening' in data && typeof data.listening === 'function') await data.listening();
      const ann = await data.userByEmail('ann@example.test');
      assert.equal(run('sign-out', 'ann@example.test').status, 0);
      await eventually(
        () => heard,
        (h) => h.length > 0,
      );
      // PostgreSQL's notification names the person; SQLite's file only says that something changed.
      const expected = testStore === 'postgres' ? { userId: ann?.id, teamId: null } : { userId: null, teamId: null };
      assert.deepEqual(heard, [expected]);
    } finally {
      off();
      await data.close();
    }
  });

  it('refuses bad usage with the usage text and an unknown account with status 1', () => {
    for (const args of [
      [],
      ['frobnicate'],
      ['unlock'],
      ['reset-link', 'a@b.test', 'extra'],
      ['unlock', 'a@b.test', '--address', '1.2.3.4'],
      ['--bogus'],
    ]) {
      const r = run(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /usage:/);
    }
    const r = run('reset-link', 'nobody@example.test');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no account has the address nobody@example\.test/);
  });
});
