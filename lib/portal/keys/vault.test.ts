import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretBox } from '../crypto/secretbox.ts';
import { acceptInvite, createInvite } from '../teams/invites.ts';
import { NoIssuer } from './issuer.ts';
import { createTeam } from '../teams/teams.ts';
import { account, memoryVault } from '../../../tests/helpers/portal-doubles.ts';
import { auditLog } from '../teams/audit.ts';
import { addKey, listKeys, resealAll, revokeKey, updateKey, withTeamKey } from './vault.ts';

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? 500,
  );
const EXTERNAL = 'rk_live_0123456789abcdefghijklmnopqrstuvwxyz';

async function setup() {
  const v = memoryVault();
  const mk = (name: string) => account(v.data, name, `${name}@example.test`);
  const ann = await mk('ann');
  const bob = await mk('bob');
  const team = await createTeam(v.data, ann, { name: 'T' });
  return { v, ann, bob, team };
}

describe('key vault', () => {
  it('stores keys sealed, shows them masked, and hands the plaintext only to server-side use', async () => {
    const { v, ann, team } = await setup();
    const created = await addKey(v, ann, team.id, { mode: 'create', name: 'CI' });
    const added = await addKey(v, ann, team.id, { mode: 'add', name: 'Remote', key: EXTERNAL });
    assert.match(created.token, /^psk_/);
    const views = await listKeys(v, ann, team.id);
    assert.ok(!JSON.stringify(views).includes(created.token) && !JSON.stringify(views).includes(EXTERNAL));
    assert.deepEqual(views.map((k) => k.hint).sort(), [`${created.token.slice(0, 8)}…${created.token.slice(-4)}`, 'rk_live_…wxyz'].sort());
    const rows = await v.data.keys(team.id);
    assert.ok(rows.every((r) => !r.sealed.includes(EXTERNAL) && !r.sealed.includes(created.token)));
    assert.equal(views.find((k) => k.id === created.key.id)?.isDefault, true, 'the first key becomes the default');
    assert.equal(await withTeamKey(v, ann, team.id, added.key.id, 'search', async (t) => t), EXTERNAL);
    assert.notEqual((await v.data.key(team.id, added.key.id))?.lastUsedAt, null, 'use records last-used time');
  });

  it('renames, moves the default, and revokes (at the service too for issued keys)', async () => {
    const { v, ann, team } = await setup();
    const a = await addKey(v, ann, team.id, { mode: 'create', name: 'A' });
    const b = await addKey(v, ann, team.id, { mode: 'add', name: 'B', key: EXTERNAL });
    await updateKey(v, ann, team.id, b.key.id, { name: 'B2', default: true });
    let keys = await listKeys(v, ann, team.id);
    assert.deepEqual(
      keys.filter((k) => k.isDefault).map((k) => k.name),
      ['B2'],
    );
    await revokeKey(v, ann, team.id, a.key.id);
    assert.deepEqual(v.issuer.revoked, ['svc1']);
    await revokeKey(v, ann, team.id, b.key.id);
    assert.deepEqual(v.issuer.revoked, ['svc1'], "an added key is not the service's to revoke");
    keys = await listKeys(v, ann, team.id);
    assert.ok(keys.every((k) => k.revokedAt !== null && !k.isDefault));
    assert.equal(await status(withTeamKey(v, ann, team.id, a.key.id, 'search', async () => 1)), 400);
    const actions = (await auditLog(v.data, ann, team.id)).events.map((e) => e.action);
    for (const a of ['key.created', 'key.added', 'key.renamed', 'key.default_set', 'key.revoked']) assert.ok(actions.includes(a), a);
  });

  it('lets members see and use keys but not manage them; outsiders get nothing', async () => {
    const { v, ann, bob, team } = await setup();
    const k = await addKey(v, ann, team.id, { mode: 'add', name: 'K', key: EXTERNAL });
    assert.equal(await status(listKeys(v, bob, team.id)), 404);
    assert.equal(await status(withTeamKey(v, bob, team.id, k.key.id, 'search', async () => 1)), 404);
    assert.equal(await status(revokeKey(v, bob, team.id, k.key.id)), 404);
    const { token } = await createInvite(v.data, ann, team.id, { role: 'member' }, 3_600_000);
    await acceptInvite(v.data, bob, token);
    assert.equal((await listKeys(v, bob, team.id)).length, 1);
    assert.equal(await withTeamKey(v, bob, team.id, null, 'search', async (t) => t), EXTERNAL, 'members use the default key');
    // One at a time: a refusal must not arrive before anyone waits for it (an unhandled rejection).
    for (const attempt of [
      () => addKey(v, bob, team.id, { mode: 'create', name: 'x' }),
      () => updateKey(v, bob, team.id, k.key.id, { name: 'y' }),
      () => revokeKey(v, bob, team.id, k.key.id),
      () => auditLog(v.data, bob, team.id),
    ]) {
      assert.equal(await status(attempt()), 403);
    }
    const other = await createTeam(v.data, ann, { name: 'Other' });
    assert.equal(await status(updateKey(v, ann, other.id, k.key.id, { name: 'z' })), 404, 'a key is found only in its own team');
  });

  it('re-encrypts every key under a new secret, all or nothing', async () => {
    const { v, ann, team } = await setup();
    await addKey(v, ann, team.id, { mode: 'add', name: 'K', key: EXTERNAL });
    const next = new SecretBox('n'.repeat(40));
    assert.equal(await resealAll(v.data, v.box, next), 1);
    const vNext = { ...v, box: next };
    assert.equal(await withTeamKey(vNext, ann, team.id, null, 'search', async (t) => t), EXTERNAL);
    assert.equal(await status(withTeamKey(v, ann, team.id, null, 'search', async (t) => t)), 500, 'the old secret no longer opens it');
    const before = await v.data.allSealed();
    await assert.rejects(resealAll(v.data, v.box, new SecretBox('m'.repeat(40))), /does not hold/);
    assert.deepEqual(await v.data.allSealed(), before, 'a failed rotation changes nothing');
  });

  it('without the operator token, refuses "Create key" and still stores existing keys', async () => {
    const { v, ann, team } = await setup();
    const remote = { ...v, issuer: new NoIssuer() };
    await assert.rejects(addKey(remote, ann, team.id, { mode: 'create', name: 'K' }), /no operator token/);
    const { key } = await addKey(remote, ann, team.id, { mode: 'add', name: 'K', key: EXTERNAL });
    assert.equal(key.source, 'external');
    await revokeKey(remote, ann, team.id, key.id);
    assert.deepEqual(v.issuer.revoked, []);
  });
});
