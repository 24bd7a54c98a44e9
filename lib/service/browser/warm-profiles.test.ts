import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { Chromium, StartHooks } from './chromium.ts';
import { WarmProfiles, type WarmSource } from './warm-profiles.ts';

/** A stand-in for a started browser: what WarmProfiles uses of one. */
class FakeBrowser extends EventEmitter {
  static next = 1;
  readonly pid = FakeBrowser.next++;
  closed = false;
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A launcher that runs the start's hook, as the real one does before Chromium runs, and counts its launches. */
function launcher(fail = false) {
  const launched: FakeBrowser[] = [];
  const launch = async (hooks?: StartHooks) => {
    await hooks?.beforeStart?.(`/instances/${launched.length}`, 1234);
    if (fail) throw new Error('no room');
    const b = new FakeBrowser();
    launched.push(b);
    return b as unknown as Chromium;
  };
  return { launch, launched };
}

/** A profile whose stored version is `version` (null: none stored). */
const source = (id: string, version: string | null, restored: string[] = []): WarmSource => ({
  id,
  restore: async (dir) => {
    restored.push(dir);
    return version;
  },
});

const settle = () => new Promise((resolve) => setImmediate(resolve));
const silent = pino({ level: 'silent' });

describe('browsers started ahead from saved profiles', () => {
  it('hands the browser started from a profile to the next start of the same profile and version, once', async () => {
    const { launch, launched } = launcher();
    const restored: string[] = [];
    const warm = new WarmProfiles(launch, 2, silent);
    warm.prepare(source('key1\0login', 'v1', restored));
    await settle();
    assert.deepEqual(restored, ['/instances/0'], 'the profile was restored into the new browser');
    assert.equal(warm.ready, 1);
    assert.equal(warm.take('key1\0login', 'v1'), launched[0]);
    assert.equal(warm.take('key1\0login', 'v1'), null, 'handed out once');
    assert.equal(warm.ready, 0);
  });

  it('never hands it to another profile, another key, or a start that found another version stored', async () => {
    const { launch, launched } = launcher();
    const warm = new WarmProfiles(launch, 2, silent);
    warm.prepare(source('key1\0login', 'v1'));
    await settle();
    assert.equal(warm.take('key2\0login', 'v1'), null);
    assert.equal(warm.take('key1\0other', 'v1'), null);
    assert.equal(warm.ready, 1, 'still kept for its own profile');
    assert.equal(warm.take('key1\0login', 'v2'), null, 'saved since (on another node)');
    assert.equal(launched[0]?.closed, true, 'the stale browser is closed');
    assert.equal(warm.ready, 0);
  });

  it('drops a profile saved or removed here, kept or still being started', async () => {
    const { launch, launched } = launcher();
    const warm = new WarmProfiles(launch, 2, silent);
    warm.prepare(source('a', 'v1'));
    await settle();
    warm.drop('a');
    assert.equal(launched[0]?.closed, true);
    assert.equal(warm.take('a', 'v1'), null);
    // Dropped while its restore runs: the browser is closed as it comes, not kept.
    let finish!: (v: string) => void;
    warm.prepare({ id: 'b', restore: () => new Promise<string>((resolve) => (finish = resolve)) });
    await settle();
    warm.drop('b');
    finish('v1');
    await settle();
    assert.equal(warm.ready, 0);
    assert.equal(launched[1]?.closed, true);
  });

  it('keeps at most `size` profiles, closing the least recently prepared, and one per profile', async () => {
    const { launch, launched } = launcher();
    const warm = new WarmProfiles(launch, 2, silent);
    for (const id of ['a', 'b', 'c']) {
      warm.prepare(source(id, 'v1'));
      await settle();
    }
    warm.prepare(source('c', 'v1'));
    await settle();
    assert.equal(launched.length, 3, 'no second browser for a profile kept already');
    assert.equal(warm.ready, 2);
    assert.equal(launched[0]?.closed, true, 'the oldest went');
    assert.equal(warm.take('a', 'v1'), null);
    assert.equal(warm.take('b', 'v1'), launched[1]);
    assert.equal(warm.take('c', 'v1'), launched[2]);
  });

  it('keeps nothing when off, for a profile that holds nothing, or when the launch fails', async () => {
    const off = launcher();
    const none = new WarmProfiles(off.launch, 0, silent);
    none.prepare(source('a', 'v1'));
    await settle();
    assert.equal(off.launched.length, 0);

    const empty = launcher();
    const warm = new WarmProfiles(empty.launch, 2, silent);
    warm.prepare(source('a', null));
    await settle();
    assert.equal(warm.ready, 0);
    assert.equal(empty.launched[0]?.closed, true, 'removed before it was restored: nothing worth keeping');

    const tries: string[] = [];
    const failing = new WarmProfiles(launcher(true).launch, 2, silent);
    failing.prepare(source('a', 'v1', tries));
    await settle();
    assert.equal(failing.ready, 0);
    failing.prepare(source('a', 'v1', tries));
    await settle();
    assert.equal(failing.ready, 0);
    assert.equal(tries.length, 2, 'a failed one is forgotten, and tried again at the next prepare');
  });

  it('forgets a kept browser that exits, and closes every kept one on close()', async () => {
    const { launch, launched } = launcher();
    const warm = new WarmProfiles(launch, 3, silent);
    warm.prepare(source('a', 'v1'));
    warm.prepare(source('b', 'v1'));
    await settle();
    launched[0]?.emit('exit', { code: 1, signal: null, expected: false });
    assert.equal(warm.take('a', 'v1'), null);
    assert.equal(warm.ready, 1);
    await warm.close();
    assert.equal(launched[1]?.closed, true);
    warm.prepare(source('c', 'v1'));
    await settle();
    assert.equal(warm.ready, 0, 'nothing is prepared once closed');
  });
});
