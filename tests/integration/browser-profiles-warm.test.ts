import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually, type StartedBrowser } from '../helpers/browser.ts';
import { endAndWaitForSave, logIn, startLoginSite, startWith, whoIsLoggedIn } from '../helpers/profiles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** A gauge or a counter of the service's /metrics, 0 when absent. */
async function metric(url: string, line: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^${line.source} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}
const WARM_READY = /periscope_profile_warm_browsers/;
const WARM_STARTS = /periscope_browser_provision_seconds_count\{pool="warm"\}/;

/**
 * Browsers started ahead from saved profiles (decision 0106, "warm profiles"; warm-profiles.ts),
 * against the real service and Chromium: the next start from a profile takes one, logged in, and
 * never one that holds another version of the profile than the one stored, nor one of another key.
 */
describe('browsers started ahead from saved profiles', () => {
  let service: ServiceProcess;
  let site: Awaited<ReturnType<typeof startLoginSite>>;
  let token: string;
  let otherToken: string;
  const scratch = mkdtempSync(join(tmpdir(), 'periscope-warm-profiles-test-'));

  before(async () => {
    site = await startLoginSite();
    service = await startService({
      // No warm browsers without a profile: every warm start below is one started from a profile.
      BROWSER_POOL_SIZE: '0',
      BROWSER_PROFILE_WARM: '2',
      BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
      BROWSER_PROFILE_MAX_MB: '2',
      PROFILE_ENCRYPTION_SECRET: 'profile-secret-for-tests-only-0123456789',
    });
    token = service.createKey({ name: 'warm', maxInstances: 10 }).token;
    otherToken = service.createKey({ name: 'someone else', maxInstances: 10 }).token;
  });
  after(async () => {
    await service?.stop();
    await site?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const ready = (n: number) =>
    eventually(
      () => metric(service.url, WARM_READY),
      (v) => v === n,
      30_000,
    );

  /** Log in as `user` in a browser saving into `name` (of the key `as`), and end it once saved. */
  async function saveLogin(name: string, user: string, as = token): Promise<void> {
    const b = await startWith(service.wsUrl, as, `profile=${name}&persist=1`);
    await logIn(service.url, b, site.url, user);
    await endAndWaitForSave(service.url, as, b, name);
  }

  /** Start from `name`, say who is logged in, and whether the start took a warm browser. */
  async function startFrom(name: string, as = token): Promise<{ who: string; warm: boolean; browser: StartedBrowser }> {
    const warmBefore = await metric(service.url, WARM_STARTS);
    const browser = await startWith(service.wsUrl, as, `profile=${name}`);
    const warm = (await metric(service.url, WARM_STARTS)) > warmBefore;
    return { who: (await whoIsLoggedIn(service.url, browser, site.url)).cookie, warm, browser };
  }

  const end = async (b: StartedBrowser) => {
    b.socket.close();
    await b.closed;
  };

  it('starts one from a profile as it is saved, which the next start takes, logged in; and one more after it', async () => {
    await saveLogin('work', 'alice');
    await ready(1);
    const first = await startFrom('work');
    assert.deepEqual([first.who, first.warm], ['session=alice', true]);
    // Taken: the next one is started ahead at once, from the same version.
    await ready(1);
    const second = await startFrom('work');
    assert.deepEqual([second.who, second.warm], ['session=alice', true]);
    // What the first changed without saving is in no other browser.
    await logIn(service.url, first.browser, site.url, 'mallory');
    await ready(1);
    const third = await startFrom('work');
    assert.deepEqual([third.who, third.warm], ['session=alice', true]);
    await Promise.all([first, second, third].map((s) => end(s.browser)));
  });

  it('keeps one for each key of a profile name, and hands each key only its own', async () => {
    await ready(1);
    // Another key saves a profile of the same name: one more is kept, beside this key's.
    await saveLogin('work', 'eve', otherToken);
    await ready(2);
    const theirs = await startFrom('work', otherToken);
    assert.deepEqual([theirs.who, theirs.warm], ['session=eve', true], 'their own profile, taken warm');
    await ready(2);
    const ours = await startFrom('work');
    assert.deepEqual([ours.who, ours.warm], ['session=alice', true], 'ours, untouched by theirs');
    await Promise.all([end(theirs.browser), end(ours.browser)]);
    // Their profile deleted: theirs is dropped, ours stays.
    await ready(2);
    const res = await fetch(`${service.url}/v0/profiles/work`, { method: 'DELETE', headers: { authorization: `Bearer ${otherToken}` } });
    assert.equal(res.status, 204);
    await ready(1);
    const again = await startFrom('work');
    assert.deepEqual([again.who, again.warm], ['session=alice', true]);
    await end(again.browser);
  });

  it('replaces it when the profile is saved again, and never hands out one holding another version than the stored one', async () => {
    const keyDir = readdirSync(join(service.dataDir, 'profiles'))
      .map((d) => join(service.dataDir, 'profiles', d))
      .find((d) => readdirSync(d).includes('p-work'));
    assert.ok(keyDir, "the key's profiles are on disk");
    copyFileSync(join(keyDir, 'p-work'), join(scratch, 'alice'));
    await saveLogin('work', 'bob');
    // The one holding alice's session was dropped as bob's was saved; the one kept now holds bob's.
    await ready(1);
    const bob = await startFrom('work');
    assert.deepEqual([bob.who, bob.warm], ['session=bob', true]);
    await end(bob.browser);
    await ready(1);
    // Another node saves alice's session back over it (the file replaced as a save replaces it):
    // the browser kept here holds bob's, which is no longer what is stored.
    copyFileSync(join(scratch, 'alice'), join(keyDir, 'p-work'));
    const back = await startFrom('work');
    assert.deepEqual([back.who, back.warm], ['session=alice', false], 'restored from the stored version, not taken warm');
    await end(back.browser);
  });

  it('drops it when the profile is deleted: the next start from that name starts empty', async () => {
    await ready(1);
    const res = await fetch(`${service.url}/v0/profiles/work`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 204);
    await ready(0);
    const empty = await startFrom('work');
    assert.deepEqual([empty.who, empty.warm], ['no session cookie', false]);
    await end(empty.browser);
  });
});
