import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { Chromium } from '#service/browser/chromium.ts';
import { EgressPolicy } from '#service/browser/egress/policy.ts';
import { EgressProxy } from '#service/browser/egress/proxy.ts';
import { resolveChromium, type ChromiumExecutable } from '#service/browser/executable.ts';
import { MemoryProfileLocks } from '#service/profiles/locks.ts';
import { Profiles } from '#service/profiles/profiles.ts';
import { ProfileSealer } from '#service/profiles/seal.ts';
import { ProfileFolder } from '#service/profiles/store.ts';

/** The in-memory locks, with each claim held back until the test lets it answer (as a slow Redis would). */
class SlowLocks extends MemoryProfileLocks {
  #open: () => void = () => {};
  #gate: Promise<void> = Promise.resolve();
  claiming = 0;

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  answer(): void {
    this.#open();
  }

  override async claim(keyId: string, name: string, holder: string): Promise<boolean> {
    const free = await super.claim(keyId, name, holder);
    this.claiming++;
    await this.#gate;
    this.claiming--;
    return free;
  }
}

const KEY = 'key-of-the-tests';

/**
 * `DELETE /v0/browsers/{id}?saveAs=` races the browser's own end (its client closes) while the
 * profile's lock is claimed (issue #27): against a real Chromium, the late save is refused and
 * holds nothing, whatever order the two come in.
 */
describe('a saveAs that comes as the browser is already ending', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-late-save-'));
  chmodSync(dir, 0o711);
  const log = pino({ level: 'silent' });
  const locks = new SlowLocks();
  const folder = new ProfileFolder(join(dir, 'profiles'));
  let egress: EgressProxy;
  let executable: ChromiumExecutable;
  let profiles: Profiles;

  before(async () => {
    await folder.init();
    egress = new EgressProxy(new EgressPolicy(), log);
    await egress.listen();
    executable = await resolveChromium(process.env.CHROME_PATH);
    profiles = new Profiles({
      folder,
      sealer: new ProfileSealer('profile-secret-for-tests-only-0123456789'),
      locks,
      maxBytes: 8 * 1024 * 1024,
      concurrency: 2,
      waitMs: 30_000,
      log,
    });
  });
  after(async () => {
    await egress?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const launch = () =>
    Chromium.launch({ executable, instancesDir: join(dir, 'instances'), isolation: { mode: 'single-tenant' }, egress, timeoutMs: 30_000 });
  const inUse = async () => (await profiles.list(KEY)).filter((p) => p.inUse).map((p) => p.name);
  const held = async (name: string) => (await locks.held(KEY, [name])).has(name);

  it('saves a live browser it was asked to save, and lets the profile go once saved (the check below can see a save and a lock)', async () => {
    const browser = await launch();
    locks.hold();
    const saving = profiles.saveOnEnd(browser, KEY, 'in-time');
    await new Promise((r) => setImmediate(r));
    assert.equal(locks.claiming, 1);
    locks.answer();
    await saving;
    assert.equal(await held('in-time'), true, 'held until the browser ends');
    await browser.close();
    assert.equal(await held('in-time'), false);
    assert.notEqual(await folder.version(KEY, 'in-time', 1 << 30), null, 'saved');
    assert.deepEqual(await inUse(), []);
  });

  it('refuses a save whose lock was claimed while the browser ended (404), and holds no lock afterwards', async () => {
    const browser = await launch();
    locks.hold();
    const saving = profiles.saveOnEnd(browser, KEY, 'too-late');
    const answered = saving.then(
      () => 'accepted',
      (err: { status?: number; message?: string }) => `${err.status} ${err.message}`,
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(locks.claiming, 1, 'the lock is being claimed');
    // The client closes meanwhile: the browser's whole teardown runs before the claim answers.
    await browser.close();
    locks.answer();
    assert.match(await answered, /^404 .*already ending/);
    assert.equal(await held('too-late'), false, 'the lock claimed for it is let go');
    assert.deepEqual(await inUse(), []);
    assert.equal(await folder.version(KEY, 'too-late', 1 << 30), null, 'nothing was saved');
    // The profile is free: a browser may save into it now.
    const next = await launch();
    await profiles.saveOnEnd(next, KEY, 'too-late');
    await next.close();
    assert.notEqual(await folder.version(KEY, 'too-late', 1 << 30), null);
    assert.equal(await held('too-late'), false);
  });

  it('takes one of two saves asked at the same moment into two profiles, refuses the other (409), and holds no lock once ended', async () => {
    const browser = await launch();
    locks.hold();
    const answers = ['twice-a', 'twice-b'].map((name) =>
      profiles.saveOnEnd(browser, KEY, name).then(
        () => 'accepted',
        (err: { status?: number }) => String(err.status),
      ),
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(locks.claiming, 2, 'both passed the first check and claim their locks');
    locks.answer();
    assert.deepEqual(await Promise.all(answers), ['accepted', '409']);
    assert.equal(await held('twice-b'), false, 'the refused one is let go at once');
    await browser.close();
    assert.deepEqual(await inUse(), []);
    assert.equal(await held('twice-a'), false);
    assert.notEqual(await folder.version(KEY, 'twice-a', 1 << 30), null);
    assert.equal(await folder.version(KEY, 'twice-b', 1 << 30), null);
  });

  it('refuses a save of a browser that had ended before it was asked, and holds no lock afterwards', async () => {
    const browser = await launch();
    await browser.close();
    await assert.rejects(profiles.saveOnEnd(browser, KEY, 'ended'), { status: 404 });
    assert.equal(await held('ended'), false);
  });
});
