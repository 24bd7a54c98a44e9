import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProfileSealer } from '#service/profiles/seal.ts';
import { ProfileFolder } from '#service/profiles/store.ts';
import { eventually, instancesDir, profileDirs, type StartedBrowser } from '../helpers/browser.ts';
import { killUids } from '#service/browser/sandbox/uids.ts';
import { endAndWaitForSave, listProfiles, logIn, startLoginSite, startWith, whoIsLoggedIn } from '../helpers/profiles.ts';
import { ROOT, startService, type ServiceProcess } from '../helpers/service.ts';

const SECRET = 'profile-secret-for-tests-only-0123456789';

/** Every file under `dir` with its kind, not following links. */
function tree(dir: string): { path: string; kind: 'file' | 'dir' | 'link' | 'other'; text?: string }[] {
  const out: ReturnType<typeof tree> = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const path = rel ? `${rel}/${name}` : name;
      try {
        const st = lstatSync(full);
        if (st.isDirectory()) {
          out.push({ path, kind: 'dir' });
          walk(full, path);
        } else if (st.isSymbolicLink()) out.push({ path, kind: 'link' });
        else if (st.isFile()) out.push({ path, kind: 'file', text: readFileSync(full, 'latin1') });
        else out.push({ path, kind: 'other' });
      } catch (err) {
        // A running browser's own journal, gone between the listing and the look (DIPS-journal):
        // not a file the test planted.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  };
  walk(dir, '');
  return out;
}

/** Saved profiles (docs/api.md, "Saved profiles"; decision 0106), against the real service and Chromium. */
describe('saved browser profiles', () => {
  let service: ServiceProcess;
  let site: Awaited<ReturnType<typeof startLoginSite>>;
  let token: string;
  let keyId: string;
  let otherToken: string;
  const scratch = mkdtempSync(join(tmpdir(), 'periscope-profiles-test-'));

  before(async () => {
    site = await startLoginSite();
    service = await startService({
      BROWSER_POOL_SIZE: '0',
      // Every start makes its own folder, found by the tests; none is started ahead (browser-profiles-warm.test.ts).
      BROWSER_PROFILE_WARM: '0',
      BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
      BROWSER_PROFILE_MAX_MB: '2',
      PROFILE_ENCRYPTION_SECRET: SECRET,
    });
    const key = service.createKey({ name: 'profiles', maxInstances: 10 });
    token = key.token;
    keyId = key.id;
    otherToken = service.createKey({ name: 'someone else' }).token;
  });
  after(async () => {
    await service?.stop();
    await site?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Start a browser and find its instance folder on the host (the pool is empty: every start makes one). */
  async function startFound(query: string, as = token): Promise<{ started: StartedBrowser; folder: string }> {
    const known = new Set(profileDirs(service.dataDir));
    const started = await startWith(service.wsUrl, as, query);
    const folder = profileDirs(service.dataDir).find((n) => !known.has(n));
    assert.ok(folder, 'the new instance has a folder');
    return { started, folder: join(instancesDir(service.dataDir), folder) };
  }

  const refusal = (query: string, as = token) =>
    startWith(service.wsUrl, as, query).then(
      (s) => {
        s.socket.close();
        throw new Error(`started with ${query}`);
      },
      (err: { status?: number; body?: string }) => ({ status: err.status, body: JSON.parse(err.body ?? '{}') as Record<string, unknown> }),
    );

  it('refuses a bad profile name or persist before the handshake, naming the option', async () => {
    for (const [query, field] of [
      ['profile=', 'profile'],
      ['profile=a/b', 'profile'],
      [`profile=${'x'.repeat(65)}`, 'profile'],
      ['profile=a%00b', 'profile'],
      ['profile=a&profile=b', 'profile'],
      ['profile=a&persist=yes', 'persist'],
      ['persist=1', 'persist'],
    ] as const) {
      const { status, body } = await refusal(query);
      assert.equal(status, 400, query);
      assert.equal((body.issues as { field: string }[])[0]?.field, field, query);
    }
  });

  it('keeps a login made with persist=1 for the next browser started from the profile, and a non-persisting use changes nothing', async () => {
    const first = await startFound('profile=work&persist=1');
    await logIn(service.url, first.started, site.url, 'alice');
    assert.deepEqual(await whoIsLoggedIn(service.url, first.started, site.url), { cookie: 'session=alice', token: 'token-of-alice' });
    // Only one browser saves into a profile at a time; any number may start from it.
    const second = await refusal('profile=work&persist=1');
    assert.equal(second.status, 409);
    assert.match(String(second.body.error), /in use/);
    const reader = await startWith(service.wsUrl, token, 'profile=work&persist=0');
    reader.socket.close();
    const saved = await endAndWaitForSave(service.url, token, first.started, 'work');
    assert.ok(saved && saved.bytes > 0);

    const again = await startWith(service.wsUrl, token, 'profile=work');
    assert.deepEqual(await whoIsLoggedIn(service.url, again, site.url), { cookie: 'session=alice', token: 'token-of-alice' });
    // Logged in as someone else, without persist: nothing of it is kept.
    await logIn(service.url, again, site.url, 'mallory');
    again.socket.close();
    await again.closed;
    const third = await startWith(service.wsUrl, token, 'profile=work&persist=1');
    assert.deepEqual(await whoIsLoggedIn(service.url, third, site.url), { cookie: 'session=alice', token: 'token-of-alice' });
    const after = await endAndWaitForSave(service.url, token, third, 'work');
    assert.ok(after);
  });

  it('shares nothing between browsers of two profiles, nor with a browser without one', async () => {
    const work = await startWith(service.wsUrl, token, 'profile=work');
    const other = await startWith(service.wsUrl, token, 'profile=other');
    const none = await startWith(service.wsUrl, token, '');
    try {
      assert.deepEqual(await whoIsLoggedIn(service.url, work, site.url), { cookie: 'session=alice', token: 'token-of-alice' });
      assert.deepEqual(await whoIsLoggedIn(service.url, other, site.url), { cookie: 'no session cookie', token: 'no token' });
      assert.deepEqual(await whoIsLoggedIn(service.url, none, site.url), { cookie: 'no session cookie', token: 'no token' });
    } finally {
      for (const s of [work, other, none]) s.socket.close();
    }
  });

  it("lists a key's profiles, deletes one, and answers another key 404", async () => {
    const listed = await listProfiles(service.url, token);
    const work = listed.find((p) => p.name === 'work');
    assert.ok(work && work.bytes > 0 && !work.inUse && !Number.isNaN(Date.parse(work.updatedAt)));
    assert.deepEqual(await listProfiles(service.url, otherToken), []);
    const otherDelete = await fetch(`${service.url}/v0/profiles/work`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${otherToken}` },
    });
    assert.equal(otherDelete.status, 404);
    // Another key's browser with the same name starts empty: names are the key's own.
    const stranger = await startWith(service.wsUrl, otherToken, 'profile=work');
    assert.deepEqual(await whoIsLoggedIn(service.url, stranger, site.url), { cookie: 'no session cookie', token: 'no token' });
    stranger.socket.close();

    const bad = await fetch(`${service.url}/v0/profiles/a%2Fb`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(bad.status, 400);
    const held = await startWith(service.wsUrl, token, 'profile=work&persist=1');
    const busy = await fetch(`${service.url}/v0/profiles/work`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(busy.status, 409);
    await endAndWaitForSave(service.url, token, held, 'work');
    const gone = await fetch(`${service.url}/v0/profiles/work`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(gone.status, 204);
    assert.equal(
      (await listProfiles(service.url, token)).some((p) => p.name === 'work'),
      false,
    );
    const again = await fetch(`${service.url}/v0/profiles/work`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(again.status, 404);
  });

  it('keeps the profile at rest sealed: neither the cookie nor the token is readable in the stored file', async () => {
    const s = await startWith(service.wsUrl, token, 'profile=sealed&persist=1');
    await logIn(service.url, s, site.url, 'carol');
    await endAndWaitForSave(service.url, token, s, 'sealed');
    const file = join(service.dataDir, 'profiles', createHash('sha256').update(keyId).digest('hex').slice(0, 32), 'p-sealed');
    const stored = readFileSync(file);
    const plain = new ProfileSealer(SECRET).open(stored, ProfileFolder.ownerTag(keyId), 'sealed');
    // What the check looks for is in the plaintext: it could see it, were it stored as is.
    assert.ok(plain.includes('token-of-carol'));
    assert.equal(stored.includes('token-of-carol'), false);
    assert.equal(stored.includes('carol'), false);
  });

  it('saves a browser started without a profile when it is stopped with saveAs (the portal\'s "Stop and save as profile")', async () => {
    const plain = await startWith(service.wsUrl, token, '');
    await logIn(service.url, plain, site.url, 'henry');
    const stop = (id: string, saveAs: string) =>
      fetch(`${service.url}/v0/browsers/${id}?saveAs=${encodeURIComponent(saveAs)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
    const bad = await stop(plain.id, '../up');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { issues: { field: string }[] }).issues[0]?.field, 'saveAs');
    const holder = await startWith(service.wsUrl, token, 'profile=held&persist=1');
    assert.equal((await stop(plain.id, 'held')).status, 409, 'a profile another browser saves into');
    assert.equal((await stop(holder.id, 'elsewhere')).status, 409, 'a browser that saves into its own profile already');
    holder.socket.close();
    assert.equal((await stop(plain.id, 'from-live')).status, 204);
    assert.equal((await plain.closed).code, 4410);
    // Answered once saved: listed at once.
    const listed = (await listProfiles(service.url, token)).find((p) => p.name === 'from-live');
    assert.ok(listed && !listed.inUse);
    const next = await startWith(service.wsUrl, token, 'profile=from-live');
    assert.deepEqual(await whoIsLoggedIn(service.url, next, site.url), { cookie: 'session=henry', token: 'token-of-henry' });
    next.socket.close();
  });

  describe('whatever ends the browser', () => {
    it('saves when the lifetime ends (4408) and when Chromium crashes (4500)', async () => {
      const timed = await startWith(service.wsUrl, token, 'profile=ends&persist=1&timeout=5');
      await logIn(service.url, timed, site.url, 'frank');
      assert.equal((await timed.closed).code, 4408);
      const saved = await eventually(
        () => listProfiles(service.url, token),
        (l) => l.some((p) => p.name === 'ends' && !p.inUse),
        20_000,
      );
      const first = saved.find((p) => p.name === 'ends');
      assert.ok(first);
      const check = await startWith(service.wsUrl, token, 'profile=ends');
      assert.deepEqual(await whoIsLoggedIn(service.url, check, site.url), { cookie: 'session=frank', token: 'token-of-frank' });
      check.socket.close();

      const crashing = await startFound('profile=ends&persist=1');
      const uid = statSync(join(crashing.folder, 'home')).uid;
      await killUids(uid, uid + 1);
      assert.equal((await crashing.started.closed).code, 4500);
      const after = await eventually(
        () => listProfiles(service.url, token),
        (l) => l.some((p) => p.name === 'ends' && !p.inUse && p.updatedAt !== first.updatedAt),
        20_000,
      );
      assert.notEqual(after.find((p) => p.name === 'ends')?.updatedAt, first.updatedAt, 'saved again after the crash');
    });

    it('saves when the service shuts down, and the next run starts from it', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'periscope-profiles-shutdown-'));
      const env = { DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0', BROWSER_EGRESS_ALLOW: '127.0.0.1/32', PROFILE_ENCRYPTION_SECRET: SECRET };
      let node = await startService(env);
      try {
        const own = node.createKey({ name: 'shutdown' }).token;
        const s = await startWith(node.wsUrl, own, 'profile=kept&persist=1');
        await logIn(node.url, s, site.url, 'grace');
        await node.stop('SIGTERM');
        assert.equal((await s.closed).code, 1001);
        // The operator rotates the secret while the service is stopped; the next run has only the new one.
        const NEW = 'rotated-profile-secret-for-tests-0123456789';
        const rotated = spawnSync(
          process.execPath,
          [join(ROOT, 'server/cli/profiles-rotate-secret.ts'), '--new-secret-env', 'NEW_SECRET'],
          {
            env: { ...process.env, ...env, NEW_SECRET: NEW },
            encoding: 'utf8',
          },
        );
        assert.equal(rotated.status, 0, rotated.stderr);
        assert.match(rotated.stdout, /sealed 1 saved profile\(s\) again/);
        const ownKeyId = (readdirSync(join(dataDir, 'profiles')).filter((n) => /^[0-9a-f]{32}$/.test(n)) as string[])[0] as string;
        const stored = readFileSync(join(dataDir, 'profiles', ownKeyId, 'p-kept'));
        assert.throws(() => new ProfileSealer(SECRET).open(stored, ownKeyId, 'kept'));
        assert.ok(new ProfileSealer(NEW).open(stored, ownKeyId, 'kept').length > 0);
        env.PROFILE_ENCRYPTION_SECRET = NEW;
        node = await startService(env);
        const next = await startWith(node.wsUrl, own, 'profile=kept');
        assert.deepEqual(await whoIsLoggedIn(node.url, next, site.url), { cookie: 'session=grace', token: 'token-of-grace' });
        next.socket.close();
      } finally {
        await node.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('a hostile tenant', () => {
    const hostFile = join(scratch, 'host-secret');
    const MARK = 'HOST-ONLY-SECRET-1f9c';

    /** Run a shell script as the instance's own uid (the owner of its home), in its profile folder, as the tenant's Chromium could. */
    const asInstance = (folder: string, script: string) => {
      const uid = statSync(join(folder, 'home')).uid;
      assert.notEqual(uid, 0, 'the instance runs as its own uid');
      execFileSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'sh', '-c', script], {
        cwd: join(folder, 'home', 'profile'),
      });
    };

    before(() => {
      writeFileSync(hostFile, MARK);
      chmodSync(hostFile, 0o644);
      chmodSync(scratch, 0o755);
    });

    it('leaves links, FIFOs and files past the limit behind: the next browser neither reads nor writes outside, and the old profile stays', async () => {
      const base = await startWith(service.wsUrl, token, 'profile=hostile&persist=1');
      await logIn(service.url, base, site.url, 'dave');
      const saved = await endAndWaitForSave(service.url, token, base, 'hostile');
      assert.ok(saved);

      // The tenant plants a link to a host file, a FIFO and a link to the root, and (to show the
      // check below sees a leak when there is one) a plain copy of the host file's contents.
      const planting = await startFound('profile=hostile&persist=1');
      asInstance(
        planting.folder,
        [
          'mkdir -p Default/IndexedDB',
          `ln -s ${hostFile} Default/IndexedDB/linked-secret`,
          'ln -s / Default/IndexedDB/root',
          'mkfifo Default/IndexedDB/pipe',
        ].join(' && '),
      );
      writeFileSync(join(planting.folder, 'home', 'profile', 'Default', 'IndexedDB', 'copied-secret'), MARK);
      await endAndWaitForSave(service.url, token, planting.started, 'hostile');

      const next = await startFound('profile=hostile&persist=1');
      const restored = tree(join(next.folder, 'home', 'profile'));
      const withMark = restored.filter((e) => e.text?.includes(MARK)).map((e) => e.path);
      assert.deepEqual(withMark, ['Default/IndexedDB/copied-secret'], 'only the plain copy carries the host file over');
      // Chromium's own lock links of the running browser (SingletonLock and its kin, made by Debian's
      // Chromium, not by the headless shell) are not the profile's: no archive holds them.
      assert.deepEqual(
        restored.filter((e) => (e.kind === 'link' || e.kind === 'other') && !/^Singleton(Lock|Socket|Cookie)$/.test(e.path)),
        [],
      );
      assert.equal(
        restored.some((e) => /linked-secret|root$|pipe$/.test(e.path)),
        false,
      );
      assert.deepEqual(await whoIsLoggedIn(service.url, next.started, site.url), { cookie: 'session=dave', token: 'token-of-dave' });

      // Now past the limit (2 MB here): the save is refused, the profile before it kept whole.
      const beforeBig = (await listProfiles(service.url, token)).find((p) => p.name === 'hostile');
      asInstance(next.folder, 'head -c 3145728 /dev/zero > Default/IndexedDB/big');
      await logIn(service.url, next.started, site.url, 'eve');
      const afterBig = await endAndWaitForSave(service.url, token, next.started, 'hostile');
      assert.deepEqual(afterBig, { ...beforeBig, inUse: false });
      assert.ok(
        service.logs.some(
          (l) => l.msg === 'profile not saved: past BROWSER_PROFILE_MAX_MB; the saved one is kept' && l.profile === 'hostile',
        ),
      );
      const last = await startWith(service.wsUrl, token, 'profile=hostile');
      assert.deepEqual(await whoIsLoggedIn(service.url, last, site.url), { cookie: 'session=dave', token: 'token-of-dave' });
      last.socket.close();
    });

    it('refuses a stored profile whose entries climb out of the profile folder, and writes nothing outside', async () => {
      const target = join(tmpdir(), `periscope-escape-${process.pid}`);
      rmSync(target, { force: true });
      const climb = `Default/${'../'.repeat(12)}${target.slice(1)}`;
      // Where an unpacker that trusted the name would write: exactly the file looked for below.
      assert.equal(join(instancesDir(service.dataDir), 'b-x', 'home', 'profile', climb), target);
      const entries: Buffer[] = [Buffer.from('PPA1')];
      const entry = (type: string, path: string, body?: string) => {
        const p = Buffer.from(path);
        const h = Buffer.from([type.charCodeAt(0), p.length >> 8, p.length & 255]);
        entries.push(h, p);
        if (body !== undefined) {
          const size = Buffer.alloc(8);
          size.writeBigUInt64BE(BigInt(body.length));
          entries.push(size, Buffer.from(body));
        }
      };
      entry('D', 'Default');
      entry('F', climb, 'escaped');
      entries.push(Buffer.from('E'));
      const dir = join(service.dataDir, 'profiles', createHash('sha256').update(keyId).digest('hex').slice(0, 32));
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'p-climber'),
        new ProfileSealer(SECRET).seal(Buffer.concat(entries), ProfileFolder.ownerTag(keyId), 'climber'),
      );

      const { status, body } = await refusal('profile=climber');
      assert.equal(status, 500);
      assert.match(String(body.error), /saved profile climber cannot be read/);
      assert.equal(existsSync(target), false);
      // The same file under another key's name or profile's name does not open at all.
      writeFileSync(join(dir, 'p-moved'), readFileSync(join(dir, 'p-climber')));
      assert.equal((await refusal('profile=moved')).status, 500);
    });
  });
});
