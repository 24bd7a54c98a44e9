import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { PublicUser } from '#portal/accounts/accounts.ts';
import { teamProfiles } from '#portal/keys/profiles.ts';
import { addKey } from '#portal/keys/vault.ts';
import { startBrowser, stopAndSaveBrowser, stopBrowser } from '#portal/live/browsers.ts';
import { TeamBrowsers } from '#portal/live/team-browsers.ts';
import { auditLog } from '#portal/teams/audit.ts';
import { acceptInvite, createInvite } from '#portal/teams/invites.ts';
import { createTeam } from '#portal/teams/teams.ts';
import { asDomainError } from '#shared/errors.ts';
import { eventually } from '../helpers/browser.ts';
import { account, browserPortal, memoryVault } from '../helpers/portal-doubles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const silent = pino({ level: 'silent' });

/**
 * The dashboard's start with a saved profile (issue #27; decision 0106): the portal passes
 * `profile` and `persist` on its /start to the real service and real Chromium, a browser that ends
 * saves into its profile, and the service's refusals come back in the portal's words.
 */
describe('a portal browser started from a saved profile', () => {
  let service: ServiceProcess;
  before(async () => (service = await startService({ BROWSER_POOL_SIZE: '0' })));
  after(() => service?.stop());

  /** A team of Ann (owner) and Bob (member) with one key, and the portal's parts on the real service. */
  async function portalOn() {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const bob = await account(v.data, 'Bob');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    await acceptInvite(v.data, bob, (await createInvite(v.data, ann, team.id, { role: 'member' }, 60_000)).token);
    const keyId = (await addKey(v, ann, team.id, { mode: 'add', name: 'crew key', key: service.createKey({ maxInstances: 10 }).token })).key
      .id;
    const live = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600_000, maxPerUser: 5, maxPerTeam: 5, log: silent });
    const p = browserPortal(service.url, v, live);
    const person = (id: string, name: string): PublicUser => ({ id, name, email: `${name.toLowerCase()}@example.test` });
    return { v, p, ann, bob, team, keyId, live, person, deps: { vault: v, serviceUrl: service.url } };
  }

  it('stops a browser and saves it as a named profile, refusing a bad name (400 naming it) and a member who did not start it (403)', async () => {
    const { v, p, ann, bob, team, keyId, live, person, deps } = await portalOn();
    try {
      const anns = await startBrowser(p, ann, person(ann.userId, 'Ann'), team.id, { name: "Ann's" });
      const fail = (call: Promise<unknown>) =>
        call.then(
          () => null,
          (err: unknown) => asDomainError(err),
        );
      const bad = await fail(stopAndSaveBrowser(p, ann, person(ann.userId, 'Ann'), team.id, anns.id, { name: 'no/slashes' }));
      assert.equal(bad?.status, 400);
      assert.deepEqual(
        bad?.issues?.map((i) => i.field),
        ['name'],
      );
      const member = await fail(stopAndSaveBrowser(p, bob, person(bob.userId, 'Bob'), team.id, anns.id, { name: 'bobs' }));
      assert.equal(member?.status, 403);
      assert.deepEqual((await teamProfiles(deps, ann, team.id)).profiles, [], 'neither refusal saved anything');
      assert.equal((await p.browsers.listForTeam(team.id)).length, 1, 'nor stopped the browser');

      assert.deepEqual(await stopAndSaveBrowser(p, ann, person(ann.userId, 'Ann'), team.id, anns.id, { name: 'logged-in' }), {
        profile: 'logged-in',
      });
      const saved = (await teamProfiles(deps, ann, team.id)).profiles.find((x) => x.name === 'logged-in');
      assert.equal(saved?.keyId, keyId, 'the profile is saved by the time the call answers');
      assert.ok(saved.bytes > 0);
      const logged = (await auditLog(v.data, ann, team.id, { kind: 'keys' })).events.filter((e) => e.action === 'profile.saved');
      assert.deepEqual(
        logged.map((e) => e.subject),
        ['logged-in'],
      );
      await eventually(
        async () => (await p.browsers.listForTeam(team.id)).length,
        (n) => n === 0,
        10_000,
      );
    } finally {
      await live.shutdown();
      await v.data.close();
    }
  });

  it('saves into the profile when it ends, refuses a second persisting start with 409, and a bad name with 400 naming the field', async () => {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    const keyId = (await addKey(v, ann, team.id, { mode: 'add', name: 'crew key', key: service.createKey({ maxInstances: 10 }).token })).key
      .id;
    const live = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600_000, maxPerUser: 5, maxPerTeam: 5, log: silent });
    const p = browserPortal(service.url, v, live);
    const deps = { vault: v, serviceUrl: service.url };
    const me: PublicUser = { id: ann.userId, name: 'Ann', email: 'ann@example.test' };
    try {
      const bad = await startBrowser(p, ann, me, team.id, { profile: '../x' }).then(
        () => null,
        (err: unknown) => asDomainError(err),
      );
      assert.equal(bad?.status, 400);
      assert.deepEqual(
        bad?.issues?.map((i) => i.field),
        ['profile'],
      );
      assert.deepEqual((await teamProfiles(deps, ann, team.id)).profiles, [], 'nothing is saved before a browser ends');

      const first = await startBrowser(p, ann, me, team.id, { name: 'first', profile: 'x', persist: true });
      const second = await startBrowser(p, ann, me, team.id, { name: 'second', profile: 'x', persist: true }).then(
        () => null,
        (err: unknown) => asDomainError(err),
      );
      assert.equal(second?.status, 409, 'one persisting browser per profile');
      assert.match(second?.message ?? '', /profile is in use/);

      await stopBrowser(p, ann, me, team.id, first.id);
      const listed = await eventually(
        async () => (await teamProfiles(deps, ann, team.id)).profiles,
        (l) => l.some((x) => x.name === 'x' && !x.inUse),
        30_000,
      );
      const saved = listed.find((x) => x.name === 'x');
      assert.equal(saved?.keyId, keyId);
      assert.ok(saved && saved.bytes > 0, 'the ended browser saved its state into the profile');
    } finally {
      await live.shutdown();
      await v.data.close();
    }
  });
});
