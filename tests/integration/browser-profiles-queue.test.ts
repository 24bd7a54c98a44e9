import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProfileFolder } from '#service/profiles/store.ts';
import { chromiumProcesses, eventually, profileDirs } from '../helpers/browser.ts';
import { endAndWaitForSave, listProfiles, startWith } from '../helpers/profiles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** What /healthz says of the browsers: how many are live and how many starts wait for room. */
async function browsersNow(url: string): Promise<{ live: number; queued: number }> {
  const res = await fetch(`${url}/healthz`);
  return ((await res.json()) as { browsers: { live: number; queued: number } }).browsers;
}

/**
 * A saved profile is read only once its start has room (decision 0106, "Memory"), against the real
 * service and Chromium: a start waiting in the queue holds none of the profile's bytes.
 */
describe('a saved profile started through the queue', () => {
  let service: ServiceProcess;
  let token: string;
  let keyId: string;

  before(async () => {
    service = await startService({
      BROWSER_POOL_SIZE: '0',
      // Every start makes its own folder, found by the tests; none is started ahead (browser-profiles-warm.test.ts).
      BROWSER_PROFILE_WARM: '0',
      BROWSER_CAPACITY: '1',
      BROWSER_PROFILE_MAX_MB: '2',
      PROFILE_ENCRYPTION_SECRET: 'profile-secret-for-tests-only-0123456789',
    });
    const key = service.createKey({ name: 'queued profiles', maxInstances: 5 });
    token = key.token;
    keyId = key.id;
  });
  after(async () => {
    await service?.stop();
  });

  const storedFile = (name: string) => join(service.dataDir, 'profiles', ProfileFolder.ownerTag(keyId), `p-${name}`);

  it('is read after the queue grants room: a profile spoilt while its start waits is refused only then, leaving no lock nor instance', async () => {
    const first = await startWith(service.wsUrl, token, 'profile=queued&persist=1');
    assert.ok(await endAndWaitForSave(service.url, token, first, 'queued'));
    const file = storedFile('queued');
    const good = readFileSync(file);

    // The one room taken, the profile's start waits in the queue.
    const blocker = await startWith(service.wsUrl, token, '');
    const instancesBefore = profileDirs(service.dataDir).length;
    let roomGiven = false;
    const queued = startWith(service.wsUrl, token, 'profile=queued&persist=1&queue=60').then(
      (s) => {
        s.socket.close();
        return { status: 101, error: '', roomGiven };
      },
      (err: { status?: number; body?: string }) => ({
        status: err.status,
        error: String((JSON.parse(err.body ?? '{}') as { error?: string }).error),
        roomGiven,
      }),
    );
    await eventually(
      () => browsersNow(service.url),
      (b) => b.queued === 1,
      10_000,
    );
    assert.equal((await listProfiles(service.url, token)).find((p) => p.name === 'queued')?.inUse, true, 'held while it waits');
    // Held, but not read: no profile work runs nor waits for it.
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    assert.match(metrics, /^periscope_profile_work\{state="running"\} 0$/m);
    assert.match(metrics, /^periscope_profile_work\{state="waiting"\} 0$/m);
    // Spoilt while the start waits: had the start read it on arrival, it would start from the good copy.
    const spoilt = Buffer.from(good);
    spoilt[spoilt.length - 1] = (spoilt[spoilt.length - 1] ?? 0) ^ 0xff;
    writeFileSync(file, spoilt);

    roomGiven = true;
    blocker.socket.close();
    const answer = await queued;
    assert.equal(answer.status, 500, `the queued start was answered ${answer.status} ${answer.error}`);
    assert.match(answer.error, /saved profile queued cannot be read/);
    assert.equal(answer.roomGiven, true);

    // The refusal let the profile go and left no instance behind.
    assert.equal((await listProfiles(service.url, token)).find((p) => p.name === 'queued')?.inUse, false);
    await eventually(
      async () => profileDirs(service.dataDir).length,
      (n) => n < instancesBefore,
      10_000,
    );
    assert.equal((await browsersNow(service.url)).live, 0);
    assert.deepEqual(await chromiumProcesses(service.dataDir), [], 'no process of the refused start runs');
    // And the room is free again: the profile, mended, starts.
    writeFileSync(file, good);
    const again = await startWith(service.wsUrl, token, 'profile=queued&persist=1');
    await endAndWaitForSave(service.url, token, again, 'queued');
  });

  it('refuses a profile deleted while its start waits once room is granted, and starts a profile that did not exist empty', async () => {
    const blocker = await startWith(service.wsUrl, token, '');
    const queued = startWith(service.wsUrl, token, 'profile=queued&queue=60').then(
      (s) => {
        s.socket.close();
        return 101;
      },
      (err: { status?: number }) => err.status,
    );
    await eventually(
      () => browsersNow(service.url),
      (b) => b.queued === 1,
      10_000,
    );
    rmSync(storedFile('queued'));
    blocker.socket.close();
    assert.equal(await queued, 500);

    const fresh = await startWith(service.wsUrl, token, 'profile=never-saved');
    fresh.socket.close();
    await fresh.closed;
    assert.equal(existsSync(storedFile('never-saved')), false);
  });
});
