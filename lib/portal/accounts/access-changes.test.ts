import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { AccessChange, PortalData } from '../data/portal-data.ts';
import { SqlitePortalData, openPortalDatabase } from '../data/sqlite.ts';
import { changePassword, deleteAccount, endAllSessions, issuePasswordReset, resetPassword } from './accounts.ts';
import { SignInThrottle } from './throttle.ts';
import type { Actor } from '../teams/access.ts';
import { acceptInvite, createInvite } from '../teams/invites.ts';
import { changeRole, createTeam, removeMember } from '../teams/teams.ts';
import { account, memoryData, memoryVault } from '../../../tests/helpers/portal-doubles.ts';

/**
 * Open sockets re-check a person's access when the data module says it changed
 * (server/portal/sockets/access-watch.ts): every path that ends sessions or changes a membership
 * must say so, and so must a change another process commits to the same file.
 */
const PASSWORD = 'long enough password';

function listen(data: PortalData): { changes: AccessChange[]; settled: () => Promise<AccessChange[]>; off: () => void } {
  const changes: AccessChange[] = [];
  const off = data.onAccessChange((c) => changes.push(c));
  // Changes are told after the commit, on a microtask.
  return { changes, settled: async () => (await sleep(0), changes.splice(0)), off };
}

async function join(data: PortalData, teamId: string, inviter: Actor, who: Actor): Promise<void> {
  const { token } = await createInvite(data, inviter, teamId, { role: 'member' }, 3_600_000);
  await acceptInvite(data, who, token);
}

describe('access changes', () => {
  it('are told for every way sessions end: new password, sign out everywhere, password reset, deleted account', async () => {
    const v = memoryVault();
    const data = v.data;
    const throttle = new SignInThrottle(data, { maxFailures: 10, maxFailuresPerAddress: 10, lockMs: 60_000 }, { sleep: async () => {} });
    const ann = await account(data, 'Ann');
    const heard = listen(data);

    await changePassword({ data, throttle }, ann, { currentPassword: PASSWORD, newPassword: 'a brand new password' }, null);
    assert.deepEqual(await heard.settled(), [{ userId: ann.userId, teamId: null }], 'new password');

    await endAllSessions(data, ann);
    assert.deepEqual(await heard.settled(), [{ userId: ann.userId, teamId: null }], 'sign out everywhere');

    const reset = await issuePasswordReset(data, 'ann@example.test', 'http://portal.test');
    assert.deepEqual(await heard.settled(), [], 'issuing a link ends nothing');
    await resetPassword(data, { token: /\/reset\/([\w-]{43})$/.exec(reset?.url ?? '')?.[1], password: 'a fresh long password' });
    assert.deepEqual(await heard.settled(), [{ userId: ann.userId, teamId: null }], 'password reset');

    await deleteAccount({ data, throttle, issuer: v.issuer, stopBrowsers: () => {} }, ann, { password: 'a fresh long password' }, null);
    assert.ok(
      (await heard.settled()).some((c) => c.userId === ann.userId && c.teamId === null),
      'deleted account',
    );
    heard.off();
  });

  it('are told for a new role and for a removal, naming the team', async () => {
    const data = memoryData();
    const ann = await account(data, 'Ann');
    const bob = await account(data, 'Bob');
    const team = await createTeam(data, ann, { name: 'Crew' });
    await join(data, team.id, ann, bob);
    const heard = listen(data);
    await changeRole(data, ann, team.id, bob.userId, { role: 'admin' });
    assert.deepEqual(await heard.settled(), [{ userId: bob.userId, teamId: team.id }], 'new role');
    await removeMember(data, ann, team.id, bob.userId);
    assert.deepEqual(await heard.settled(), [{ userId: bob.userId, teamId: team.id }], 'removed');
    heard.off();
  });

  it('are told, whose unknown, when another process commits to the same file (the operator CLI)', async () => {
    const dir = mkdtempSync(joinPath(tmpdir(), 'periscope-access-'));
    const portal = new SqlitePortalData(openPortalDatabase(dir), { pollMs: 20 });
    const cli = new SqlitePortalData(openPortalDatabase(dir));
    try {
      const ann = await account(portal, 'Ann');
      const heard = listen(portal);
      await sleep(100);
      assert.deepEqual(heard.changes, [], "the portal's own writes are told once, by itself, and reading is no change");

      await cli.endSessions(ann.userId);
      await sleep(200);
      assert.deepEqual(heard.changes, [{ userId: null, teamId: null }], 'the other process is heard');

      heard.off();
      await cli.endSessions(ann.userId);
      await sleep(100);
      assert.equal(heard.changes.length, 1, 'nobody listens: the watch has stopped');
    } finally {
      portal.close();
      cli.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
