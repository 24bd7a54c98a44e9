import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addKey } from '../keys/vault.ts';
import { auditLog } from './audit.ts';
import { acceptInvite, createInvite } from './invites.ts';
import { createTeam, setTeamRecording } from './teams.ts';
import { account, memoryVault } from '../../../tests/helpers/portal-doubles.ts';

describe('setTeamRecording', () => {
  it('turns recording on for every key the portal issued, and for keys issued later; keys from elsewhere are counted, not changed', async () => {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    const first = await addKey(v, ann, team.id, { mode: 'create', name: 'CI' });
    await addKey(v, ann, team.id, { mode: 'add', name: 'Remote', key: 'rk_live_0123456789abcdefwxyz' });
    const serviceId = (await v.data.keys(team.id)).find((k) => k.id === first.key.id)?.serviceKeyId ?? '';
    assert.equal(v.issuer.recording.get(serviceId), false, 'off by default');

    assert.deepEqual(await setTeamRecording(v, ann, team.id, { record: true }), { record: true, changed: 1, elsewhere: 1 });
    assert.equal(v.issuer.recording.get(serviceId), true);
    assert.equal((await v.data.team(team.id))?.recordSessions, true);
    const later = await addKey(v, ann, team.id, { mode: 'create', name: 'Later' });
    const laterId = (await v.data.keys(team.id)).find((k) => k.id === later.key.id)?.serviceKeyId ?? '';
    assert.equal(v.issuer.recording.get(laterId), true, 'a key issued later follows the team');

    await setTeamRecording(v, ann, team.id, { record: false });
    assert.equal(v.issuer.recording.get(serviceId), false);
    const actions = (await auditLog(v.data, ann, team.id, { kind: 'team' })).events.map((e) => e.action);
    assert.deepEqual(actions.slice(0, 2), ['team.recording_off', 'team.recording_on']);
  });

  it('is for owners and admins, and takes exactly a boolean', async () => {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const bob = await account(v.data, 'Bob');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    const { token } = await createInvite(v.data, ann, team.id, { role: 'member' }, 3_600_000);
    await acceptInvite(v.data, bob, token);
    await assert.rejects(setTeamRecording(v, bob, team.id, { record: true }), (e: Error & { status?: number }) => e.status === 403);
    for (const bad of [{}, { record: 'yes' }, { record: true, extra: 1 }]) {
      await assert.rejects(
        setTeamRecording(v, ann, team.id, bad),
        (e: Error & { status?: number }) => e.status === 400,
        JSON.stringify(bad),
      );
    }
  });
});
