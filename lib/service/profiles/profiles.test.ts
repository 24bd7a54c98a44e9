import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { packProfile } from './archive.ts';
import { MemoryProfileLocks } from './locks.ts';
import { Profiles } from './profiles.ts';
import { ProfileSealer } from './seal.ts';
import { ProfileFolder } from './store.ts';

/** The real folder, watched: how many reads and writes of sealed profiles run at once, held until the test opens its gate. */
class WatchedFolder extends ProfileFolder {
  reads = 0;
  running = 0;
  most = 0;
  #open: () => void = () => {};
  #gate: Promise<void> = Promise.resolve();

  close(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  open(): void {
    this.#open();
  }

  async #watched<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    this.most = Math.max(this.most, this.running);
    try {
      await this.#gate;
      return await work();
    } finally {
      this.running--;
    }
  }

  override read(keyId: string, name: string, maxBytes: number): Promise<Buffer | null> {
    this.reads++;
    return this.#watched(() => super.read(keyId, name, maxBytes));
  }

  override write(keyId: string, name: string, sealed: Buffer): Promise<void> {
    return this.#watched(() => super.write(keyId, name, sealed));
  }
}

/** Until `reached` holds: the real file reads and writes before it take as long as the machine's load makes them. */
const until = async (reached: () => boolean, what: string) => {
  for (const end = Date.now() + 20_000; !reached(); await new Promise((r) => setTimeout(r, 2)))
    if (Date.now() > end) assert.fail(`never reached: ${what}`);
};

const KEY = 'key-of-the-tests';
const SECRET = 'profile-secret-for-tests-only-0123456789';

describe('saved profiles in memory: read only when restored, and a bounded number of restores and saves at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-profiles-unit-'));
  const sealer = new ProfileSealer(SECRET);
  let folder: WatchedFolder;
  let n = 0;
  const fresh = () => join(dir, `case-${++n}`);
  const profiles = (o: { concurrency?: number; waitMs?: number } = {}) =>
    new Profiles({
      folder,
      sealer,
      locks: new MemoryProfileLocks(),
      maxBytes: 1024 * 1024,
      concurrency: o.concurrency ?? 2,
      waitMs: o.waitMs ?? 60_000,
      log: pino({ level: 'silent' }),
    });

  /** A browser's user data folder with a little in it, as a persisting browser leaves it. */
  const userData = () => {
    const p = fresh();
    mkdirSync(join(p, 'Default'), { recursive: true });
    writeFileSync(join(p, 'Local State'), '{"kept":true}');
    writeFileSync(join(p, 'Default', 'Preferences'), '{}');
    return p;
  };

  before(async () => {
    folder = new WatchedFolder(join(dir, 'store'));
    await folder.init();
    const packed = await packProfile(userData(), 1024 * 1024);
    await folder.write(KEY, 'shared', sealer.seal(packed.data, ProfileFolder.ownerTag(KEY), 'shared'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads nothing of a stored profile when a browser takes it up, and all of it when it is restored', async () => {
    const before = folder.reads;
    const use = await profiles().use(KEY, 'shared', false);
    assert.equal(folder.reads, before, 'taken up without reading it');
    const target = fresh();
    await use.restore(target, null);
    assert.equal(folder.reads, before + 1);
    assert.ok(existsSync(join(target, 'Local State')));
  });

  it('runs no more restores and saves at once than its bound, however many starts and ends come together', async () => {
    const p = profiles({ concurrency: 2 });
    folder.most = 0;
    folder.close();
    const restoring = Array.from({ length: 8 }, async () => {
      const use = await p.use(KEY, 'shared', false);
      const target = fresh();
      await use.restore(target, null);
      return existsSync(join(target, 'Local State'));
    });
    const saving = ['saved-a', 'saved-b'].map(async (name) => {
      const use = await p.use(KEY, name, true);
      await use.finish(userData());
    });
    await until(() => p.work.running === 2 && p.work.waiting === 8 && folder.running === 2, 'two pieces of work running, eight waiting');
    // More time gives no third one a turn.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(folder.running, 2, 'two pieces of profile work run');
    assert.deepEqual(p.work, { running: 2, waiting: 8 });
    folder.open();
    assert.deepEqual(await Promise.all(restoring), Array(8).fill(true));
    await Promise.all(saving);
    assert.equal(folder.most, 2, 'never more than two at once');
    assert.deepEqual(
      (await folder.list(KEY)).map((s) => s.name),
      ['saved-a', 'saved-b', 'shared'],
    );
  });

  it('refuses a restore that waits past the launch timeout with a 503, having read nothing', async () => {
    const p = profiles({ concurrency: 1, waitMs: 50 });
    folder.close();
    const first = await p.use(KEY, 'shared', false);
    const holding = first.restore(fresh(), null);
    await until(() => folder.running === 1, 'the first restore reading');
    const reads = folder.reads;
    const late = await p.use(KEY, 'shared', false);
    await assert.rejects(late.restore(fresh(), null), { status: 503, message: /busy restoring and saving other saved profiles/ });
    assert.equal(folder.reads, reads);
    folder.open();
    await holding;
  });

  it('takes the restore of a client that went away out of the line, having read nothing', async () => {
    const p = profiles({ concurrency: 1 });
    folder.close();
    const first = await p.use(KEY, 'shared', false);
    const holding = first.restore(fresh(), null);
    await until(() => folder.running === 1, 'the first restore reading');
    const reads = folder.reads;
    const gone = new AbortController();
    const leaving = await p.use(KEY, 'shared', true, { signal: gone.signal });
    const restoring = leaving.restore(fresh(), null);
    await until(() => p.work.waiting === 1, 'the second restore waiting for its turn');
    gone.abort(new Error('the client went away'));
    await assert.rejects(restoring, /the client went away/);
    assert.equal(folder.reads, reads);
    await leaving.release();
    assert.deepEqual(await p.list(KEY).then((l) => l.filter((s) => s.inUse)), []);
    folder.open();
    await holding;
  });

  it('refuses at once, before any read, a stored profile past the limit, and lets its lock go', async () => {
    const p = profiles();
    await folder.write(KEY, 'huge', Buffer.alloc(1024 * 1024 + ProfileSealer.overhead + 1));
    const reads = folder.reads;
    await assert.rejects(p.use(KEY, 'huge', true), { status: 500, message: /saved profile huge cannot be read/ });
    assert.equal(folder.reads, reads);
    assert.deepEqual(await p.list(KEY).then((l) => l.filter((s) => s.inUse)), []);
  });
});
