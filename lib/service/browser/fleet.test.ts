import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { ApiKey } from '../keys/store.ts';
import type { Chromium } from './chromium.ts';
import { BrowserFleet } from './fleet.ts';
import type { BrowserPool } from './pool.ts';

const key: ApiKey = { id: 'key_1', name: 'k', ratePerMinute: 40, maxInstances: 5, createdAt: new Date(), lastUsedAt: null } as ApiKey;

/** A pool double whose launches fail `failures` times, then hand out a stand-in browser. */
function flakyPool(failures: number): { pool: BrowserPool; takes: () => number } {
  let takes = 0;
  const browser = Object.assign(new EventEmitter(), { pid: 1, close: async () => {} }) as unknown as Chromium;
  const pool = {
    take: async () => {
      takes++;
      if (takes <= failures) throw new Error(`launch ${takes} crashed`);
      return { browser, warm: false };
    },
  } as unknown as BrowserPool;
  return { pool, takes: () => takes };
}

describe('BrowserFleet launch failures', () => {
  const fleetOf = (pool: BrowserPool) => new BrowserFleet({ pool, capacity: 4, lifetimeMs: 60_000, log: pino({ level: 'silent' }) });

  it('tries a failed launch once more before refusing', async () => {
    const { pool, takes } = flakyPool(1);
    const fleet = fleetOf(pool);
    const instance = await fleet.provision(key);
    assert.equal(takes(), 2);
    assert.equal(fleet.get(instance.id, key.id), instance);
    await fleet.end(instance.id, 'client-closed');
  });

  it('answers 503 after the second failure, holding nothing against the key', async () => {
    const { pool, takes } = flakyPool(5);
    const fleet = fleetOf(pool);
    await assert.rejects(
      fleet.provision(key),
      (err: Error & { status?: number }) => err.status === 503 && /could not start a browser/.test(err.message),
    );
    assert.equal(takes(), 2);
    assert.equal(fleet.countFor(key.id), 0);
  });
});

describe('BrowserFleet with a shared count of each key (several nodes)', () => {
  /** An admission double: a set of admitted ids and a limit, as the cluster registry holds them. */
  function sharedCount(heldElsewhere: number) {
    const admitted = new Set<string>();
    const released: string[] = [];
    return {
      admitted,
      released,
      admission: {
        admit: async (id: string, _keyId: string, max: number) => {
          if (admitted.size + heldElsewhere >= max) return false;
          admitted.add(id);
          return true;
        },
        release: async (id: string) => {
          released.push(id);
          admitted.delete(id);
        },
      },
    };
  }

  it('refuses with 429 what the shared count refuses, though this node holds none of the key', async () => {
    const { pool, takes } = flakyPool(0);
    const shared = sharedCount(key.maxInstances);
    const fleet = new BrowserFleet({ pool, capacity: 4, lifetimeMs: 60_000, log: pino({ level: 'silent' }), admission: shared.admission });
    await assert.rejects(fleet.provision(key), (err: Error & { status?: number }) => err.status === 429);
    assert.equal(takes(), 0);
    assert.equal(fleet.load, 0);
  });

  it('admits under the same id the client gets, and releases it when the browser ends or fails to start', async () => {
    const shared = sharedCount(0);
    const ok = new BrowserFleet({
      pool: flakyPool(0).pool,
      capacity: 4,
      lifetimeMs: 60_000,
      log: pino({ level: 'silent' }),
      admission: shared.admission,
    });
    const instance = await ok.provision(key);
    assert.deepEqual([...shared.admitted], [instance.id]);
    await ok.end(instance.id, 'client-closed');
    assert.deepEqual(shared.released, [instance.id]);
    assert.equal(shared.admitted.size, 0);

    const failing = new BrowserFleet({
      pool: flakyPool(5).pool,
      capacity: 4,
      lifetimeMs: 60_000,
      log: pino({ level: 'silent' }),
      admission: shared.admission,
    });
    await assert.rejects(failing.provision(key), (err: Error & { status?: number }) => err.status === 503);
    assert.equal(shared.admitted.size, 0);
    assert.equal(shared.released.length, 2);
  });

  it('frees the place of an ending browser at once, as the count of one node does, while its processes are still ending', async () => {
    const shared = sharedCount(0);
    let finishClose!: () => void;
    const closing = new Promise<void>((r) => (finishClose = r));
    const browser = Object.assign(new EventEmitter(), { pid: 1, close: () => closing }) as unknown as Chromium;
    const pool = { take: async () => ({ browser, warm: false }) } as unknown as BrowserPool;
    const fleet = new BrowserFleet({ pool, capacity: 4, lifetimeMs: 60_000, log: pino({ level: 'silent' }), admission: shared.admission });
    const instance = await fleet.provision(key);
    assert.equal(fleet.load, 1);
    const ended = fleet.end(instance.id, 'client-closed');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(shared.released, [instance.id], 'released before the browser is gone');
    assert.equal(fleet.load, 0, 'an ending browser is no load');
    assert.equal(fleet.countFor(key.id), 0);
    finishClose();
    await ended;
  });
});

describe('BrowserFleet draining before a stop', () => {
  const fleetOf = (pool: BrowserPool) => new BrowserFleet({ pool, capacity: 4, lifetimeMs: 60_000, log: pino({ level: 'silent' }) });

  it('refuses new browsers with 503 and Retry-After, keeps the live ones, and is done when the last one ends', async () => {
    const fleet = fleetOf(flakyPool(0).pool);
    const kept = await fleet.provision(key);
    const other = await fleet.provision(key);
    let done = false;
    const drained = fleet.drain(60_000).then(() => (done = true));
    assert.equal(fleet.draining, true);
    await assert.rejects(
      fleet.provision(key),
      (err: Error & { status?: number; headers?: Record<string, string> }) =>
        err.status === 503 && err.headers?.['retry-after'] === '5' && /shutting down and takes no new browsers/.test(err.message),
    );
    assert.equal(fleet.get(kept.id, key.id), kept, 'a live browser is kept');
    await fleet.end(kept.id, 'client-closed');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(done, false, 'one browser is still live');
    await fleet.end(other.id, 'client-closed');
    await drained;
    assert.equal(fleet.size, 0);
  });

  it('is done when its time is up, with the browsers still live', async () => {
    const fleet = fleetOf(flakyPool(0).pool);
    const live = await fleet.provision(key);
    await fleet.drain(50);
    assert.equal(fleet.get(live.id, key.id), live);
    await fleet.end(live.id, 'client-closed');
  });
});
