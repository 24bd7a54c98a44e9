import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptInvite, createInvite, inviteTokenOf, listInvites, previewInvite, revokeInvite } from './invites.ts';
import { changeRole, createTeam, currentTeam, getTeam, listMembers, removeMember, renameTeam, selectTeam } from './teams.ts';
import { account, memoryData } from '../../../tests/helpers/portal-doubles.ts';
import type { PortalData } from '../data/portal-data.ts';

const HOUR = 3_600_000;

const user = (data: PortalData, name: string) => account(data, name);

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? 500,
  );

describe('teams and roles', () => {
  it('gives each new user a personal team they own, and remembers the chosen team', async () => {
    const data = memoryData();
    const ann = await user(data, 'Ann');
    const personal = (await currentTeam(data, ann))!;
    assert.equal(personal.personal, true);
    assert.equal(personal.role, 'owner');
    const work = await createTeam(data, ann, { name: 'Work' });
    assert.equal((await currentTeam(data, ann))?.id, work.id);
    await selectTeam(data, ann, personal.id);
    assert.equal((await currentTeam(data, ann))?.id, personal.id);
  });

  it('refuses every read and write to a team one is not a member of (404, as for no team)', async () => {
    const data = memoryData();
    const ann = await user(data, 'Ann');
    const bob = await user(data, 'Bob');
    const team = await createTeam(data, ann, { name: 'Ann Co' });
    const checks = [
      getTeam(data, bob, team.id),
      listMembers(data, bob, team.id),
      renameTeam(data, bob, team.id, { name: 'Mine' }),
      selectTeam(data, bob, team.id),
      changeRole(data, bob, team.id, ann.userId, { role: 'member' }),
      removeMember(data, bob, team.id, ann.userId),
      createInvite(data, bob, team.id, { role: 'member' }, HOUR),
      listInvites(data, bob, team.id),
    ];
    assert.deepEqual(
      await Promise.all(checks.map(status)),
      checks.map(() => 404),
    );
    assert.equal((await getTeam(data, ann, team.id)).name, 'Ann Co');
  });

  it('keeps the last owner, and lets owners but not admins touch owners', async () => {
    const data = memoryData();
    const ann = await user(data, 'Ann');
    const bob = await user(data, 'Bob');
    const cat = await user(data, 'Cat');
    const team = await createTeam(data, ann, { name: 'T' });
    for (const [who, role] of [
      [bob, 'admin'],
      [cat, 'member'],
    ] as const) {
      const { token } = await createInvite(data, ann, team.id, { role }, HOUR);
      await acceptInvite(data, who, token);
    }
    assert.equal(await status(removeMember(data, ann, team.id, ann.userId)), 409, 'last owner cannot leave');
    assert.equal(await status(changeRole(data, ann, team.id, ann.userId, { role: 'admin' })), 409, 'last owner cannot step down');
    assert.equal(await status(removeMember(data, bob, team.id, ann.userId)), 403, 'admin cannot remove an owner');
    assert.equal(await status(changeRole(data, bob, team.id, cat.userId, { role: 'owner' })), 403, 'admin cannot make owners');
    assert.equal(await status(changeRole(data, cat, team.id, bob.userId, { role: 'member' })), 403, 'member cannot change roles');
    assert.equal(await status(createInvite(data, cat, team.id, { role: 'member' }, HOUR)), 403, 'member cannot invite');
    assert.equal(await status(changeRole(data, bob, team.id, cat.userId, { role: 'admin' })), 200, 'admin promotes a member');
    await changeRole(data, ann, team.id, bob.userId, { role: 'owner' });
    assert.equal(await status(removeMember(data, ann, team.id, ann.userId)), 200, 'an owner leaves once another owner exists');
    assert.equal(await status(removeMember(data, cat, team.id, cat.userId)), 200, 'anyone may leave');
    assert.deepEqual(
      (await listMembers(data, bob, team.id)).map((m) => m.role),
      ['owner'],
    );
  });
});

describe('invitations', () => {
  it('show their team, inviter (by name) and role to whoever holds the link, signed in or not', async () => {
    const data = memoryData();
    const ann = await user(data, 'Ann');
    const team = await createTeam(data, ann, { name: 'Crew' });
    const link = await createInvite(data, ann, team.id, { role: 'admin' }, HOUR);
    const anonymous = await previewInvite(data, null, link.token);
    assert.deepEqual(anonymous, { teamName: 'Crew', role: 'admin', invitedBy: 'Ann', status: 'open' });
    assert.equal((await previewInvite(data, ann, link.token)).status, 'member');
    assert.equal(inviteTokenOf(`/invite/${link.token}`), link.token);
    for (const path of ['/invite/', '/invite/short', `/invite/${link.token}/x`, `/teams/${link.token}`, `/invite/${link.token}?a=1`]) {
      assert.equal(inviteTokenOf(path), null, path);
    }
  });

  it('work once, and not after they expire or are withdrawn', async () => {
    const data = memoryData();
    const ann = await user(data, 'Ann');
    const bob = await user(data, 'Bob');
    const cat = await user(data, 'Cat');
    const team = await createTeam(data, ann, { name: 'T' });
    const once = await createInvite(data, ann, team.id, { role: 'member' }, HOUR);
    assert.equal((await previewInvite(data, bob, once.token)).status, 'open');
    assert.deepEqual(await acceptInvite(data, bob, once.token), { teamId: team.id });
    assert.equal(await status(acceptInvite(data, cat, once.token)), 410, 'single use');

    const expiring = await createInvite(data, ann, team.id, { role: 'member' }, HOUR);
    const invite = await data.inviteByTokenHash((await import('../data/ids.ts')).hashToken(expiring.token));
    assert.equal(
      await data.acceptInvite(invite!.id, cat.userId, invite!.expiresAt, {
        teamId: team.id,
        actorId: cat.userId,
        action: 'x',
        subject: 'x',
      }),
      'expired',
    );

    const withdrawn = await createInvite(data, ann, team.id, { role: 'admin' }, HOUR);
    await revokeInvite(data, ann, team.id, withdrawn.invite.id);
    assert.equal(await status(acceptInvite(data, cat, withdrawn.token)), 410);
    assert.equal(await status(acceptInvite(data, cat, 'not-a-token')), 404);
    assert.equal((await listMembers(data, ann, team.id)).length, 2);
  });
});
