import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SecretBox } from '#portal/crypto/secretbox.ts';
import type { PortalData } from '#portal/data/portal-data.ts';
import { NoIssuer } from '#portal/keys/issuer.ts';
import { deleteTeamProfile, teamProfiles } from '#portal/keys/profiles.ts';
import { addKey, type Vault } from '#portal/keys/vault.ts';
import { auditLog, KeyUseLog } from '#portal/teams/audit.ts';
import { acceptInvite, createInvite } from '#portal/teams/invites.ts';
import { createTeam } from '#portal/teams/teams.ts';
import { asDomainError } from '#shared/errors.ts';
import { account, memoryData } from '../helpers/portal-doubles.ts';
import { endAndWaitForSave, listProfiles, logIn, startLoginSite, startWith } from '../helpers/profiles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** The error a domain call failed with, as the portal's routes answer it: status, code and words. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; code: string; message: string; fields: string[] }> {
  try {
    await call;
  } catch (err) {
    const e = asDomainError(err);
    if (!e) throw err;
    return { status: e.status, code: e.code, message: e.message, fields: (e.issues ?? []).map((i) => i.field) };
  }
  throw new Error('the call was not refused');
}

/**
 * The portal's Profiles page (issue #27, item 4; decision 0109): the saved profiles of a team's
 * keys, read and deleted through the service's public interface with the team's own stored keys,
 * against the real service and real Chromium. The domain functions are called as the portal's
 * routes call them (app/api/teams/[teamId]/profiles), with the route's input.
 */
describe("a team's saved browser profiles in the portal", () => {
  let service: ServiceProcess;
  let site: Awaited<ReturnType<typeof startLoginSite>>;
  let data: PortalData;
  let deps: { vault: Vault; serviceUrl: string };
  let ann: { userId: string };
  let bob: { userId: string };
  let eve: { userId: string };
  let teamId: string;
  let eveTeamId: string;
  let keyId: string;
  let eveKeyId: string;
  let token: string;
  let eveServiceKeyId: string;

  before(async () => {
    site = await startLoginSite();
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    data = memoryData();
    const vault = { data, box: new SecretBox('k'.repeat(40)), issuer: new NoIssuer(), keyUse: new KeyUseLog(data) };
    deps = { vault, serviceUrl: service.url };
    ann = await account(data, 'Ann');
    bob = await account(data, 'Bob');
    eve = await account(data, 'Eve');
    teamId = (await createTeam(data, ann, { name: 'Crew' })).id;
    await acceptInvite(data, bob, (await createInvite(data, ann, teamId, { role: 'member' }, 60_000)).token);
    eveTeamId = (await createTeam(data, eve, { name: 'Elsewhere' })).id;
    token = service.createKey({ name: 'crew', maxInstances: 10 }).token;
    keyId = (await addKey(vault, ann, teamId, { mode: 'add', name: 'ci', key: token })).key.id;
    const eveKey = service.createKey({ name: 'elsewhere', maxInstances: 10 });
    const eveToken = eveKey.token;
    eveServiceKeyId = eveKey.id;
    eveKeyId = (await addKey(vault, eve, eveTeamId, { mode: 'add', name: 'eve key', key: eveToken })).key.id;
    // Another team's profile, saved by a real persisting browser of its own key.
    await endAndWaitForSave(service.url, eveToken, await startWith(service.wsUrl, eveToken, 'profile=theirs&persist=1'), 'theirs');
  });
  after(async () => {
    await service?.stop();
    await site?.close();
  });

  it('lists nothing before a browser has saved a profile, and never another team’s', async () => {
    assert.deepEqual(await teamProfiles(deps, ann, teamId), { profiles: [], unread: [] });
    const theirs = await teamProfiles(deps, eve, eveTeamId);
    assert.deepEqual(
      theirs.profiles.map((p) => [p.keyName, p.name]),
      [['eve key', 'theirs']],
      'the other team sees its own, so the empty list above is not for want of a save',
    );
  });

  it('shows a profile in use while its persisting browser runs, and refuses to delete it with a 409 in words', async () => {
    const started = await startWith(service.wsUrl, token, 'profile=work&persist=1');
    await logIn(service.url, started, site.url, 'ann');
    const conflict = await refusal(deleteTeamProfile(deps, ann, teamId, { keyId, name: 'work' }));
    // The profile is not saved before its first browser ends: the service answers 409 for the lock all the same.
    assert.equal(conflict.status, 409);
    assert.match(conflict.message, /"work" is in use: a browser that saves into it is running/);
    const saved = await endAndWaitForSave(service.url, token, started, 'work');
    assert.ok(saved && saved.bytes > 0, 'the service saved it');
  });

  it('lists the saved profile with its key, size, last save and state', async () => {
    const { profiles, unread } = await teamProfiles(deps, bob, teamId);
    assert.deepEqual(unread, []);
    assert.equal(profiles.length, 1);
    const [work] = profiles;
    const atService = (await listProfiles(service.url, token)).find((p) => p.name === 'work')!;
    assert.deepEqual(work, {
      name: 'work',
      bytes: atService.bytes,
      updatedAt: Date.parse(atService.updatedAt),
      inUse: false,
      keyId,
      keyName: 'ci',
    });
  });

  it('refuses a member (403), a stranger (404) and another team’s key (404), and deletes nothing', async () => {
    const member = await refusal(deleteTeamProfile(deps, bob, teamId, { keyId, name: 'work' }));
    assert.equal(member.status, 403);
    assert.match(member.message, /only owners and admins/);
    const stranger = await refusal(deleteTeamProfile(deps, eve, teamId, { keyId, name: 'work' }));
    assert.equal(stranger.status, 404);
    // Eve, owner of her own team, names Ann's key through her team, and Ann names Eve's key through hers.
    const crossed = await refusal(deleteTeamProfile(deps, eve, eveTeamId, { keyId, name: 'work' }));
    assert.equal(crossed.status, 404);
    const theirs = await refusal(deleteTeamProfile(deps, ann, teamId, { keyId: eveKeyId, name: 'theirs' }));
    assert.equal(theirs.status, 404);
    assert.deepEqual(
      (await listProfiles(service.url, token)).map((p) => p.name),
      ['work'],
    );
    assert.equal((await teamProfiles(deps, eve, eveTeamId)).profiles.length, 1, "the other team's profile is still there");
  });

  it('refuses a name the service would not take, and a malformed key, naming the field', async () => {
    for (const [input, field] of [
      [{ keyId, name: '../work' }, 'name'],
      [{ keyId, name: 'x'.repeat(65) }, 'name'],
      [{ keyId, name: '' }, 'name'],
      [{ keyId: 'k'.repeat(101), name: 'work' }, 'keyId'],
      [{ keyId, name: 'work', extra: 1 }, ''],
    ] as const) {
      const bad = await refusal(deleteTeamProfile(deps, ann, teamId, input));
      assert.equal(bad.status, 400, JSON.stringify(input));
      if (field) assert.deepEqual(bad.fields, [field]);
    }
  });

  it('deletes it for an owner, records who did in the audit log, and says a second delete finds it gone', async () => {
    await deleteTeamProfile(deps, ann, teamId, { keyId, name: 'work' });
    assert.deepEqual(await listProfiles(service.url, token), [], 'deleted at the service');
    assert.deepEqual((await teamProfiles(deps, ann, teamId)).profiles, []);
    const log = await auditLog(data, ann, teamId, { kind: 'keys' });
    const entry = log.events.find((e) => e.action === 'profile.deleted');
    assert.ok(entry, 'recorded');
    assert.equal(entry.actorId, ann.userId);
    assert.equal(entry.subject, 'work');
    assert.equal(entry.detail.key, 'ci');
    const again = await refusal(deleteTeamProfile(deps, ann, teamId, { keyId, name: 'work' }));
    assert.equal(again.status, 404);
    assert.match(again.message, /no profile "work": it was deleted already/);
    assert.equal((await auditLog(data, ann, teamId, { kind: 'keys' })).events.filter((e) => e.action === 'profile.deleted').length, 1);
  });

  it('names a key the service refuses instead of failing the whole list', async () => {
    assert.equal(service.keysCli(['revoke', eveServiceKeyId]).status, 0);
    const after = await teamProfiles(deps, eve, eveTeamId);
    assert.deepEqual(after, { profiles: [], unread: ['eve key'] });
  });
});
