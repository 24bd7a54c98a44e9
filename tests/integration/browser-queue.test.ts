import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Periscope, RateLimitError, UnavailableError, type RemoteBrowser } from '../../clients/typescript/src/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** `/start?queue=SECONDS` (docs/api.md, section 1): waiting for room instead of a refusal. */
describe('/start queue', () => {
  let service: ServiceProcess;
  const client = (name: string, maxInstances = 5) =>
    new Periscope({ apiKey: service.createKey({ name, maxInstances }).token, baseUrl: service.url, timeoutMs: 30_000 });
  const health = async () =>
    ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { live: number; queued: number; oldestQueuedSeconds: number } })
      .browsers;

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_CAPACITY: '2' });
  });
  after(() => service?.stop());

  it('gives a waiting start its browser when one of those at capacity ends, and says so on /healthz and /metrics', async () => {
    const holder = client('holder');
    const held = [await holder.browsers.start(), await holder.browsers.start()];
    const waiter = client('waiter');
    await assert.rejects(waiter.browsers.start(), UnavailableError, 'without queue: 503 at once, as before');
    const waiting = waiter.browsers.start({ queue: 20 });
    const queued = await eventually(health, (h) => h.queued === 1);
    assert.equal(queued.queued, 1);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    assert.match(metrics, /^periscope_start_queue_waiting 1$/m);
    await held[0]!.stop();
    const got = await waiting;
    assert.match(got.id, /^br_/);
    assert.equal((await health()).queued, 0);
    assert.match(await (await fetch(`${service.url}/metrics`)).text(), /^periscope_start_queue_wait_seconds_count 1$/m);
    await Promise.all([got.stop(), held[1]!.stop()]);
  });

  it('answers the refusal it would have had once its time is up: 503 at capacity, 429 at the key’s limit', async () => {
    const holder = client('full');
    const held = [await holder.browsers.start(), await holder.browsers.start()];
    try {
      await assert.rejects(client('late').browsers.start({ queue: 1 }), UnavailableError);
    } finally {
      await Promise.all(held.map((b) => b.stop()));
    }
    const single = client('single', 1);
    const one = await single.browsers.start();
    try {
      const err = await single.browsers.start({ queue: 1 }).catch((e: unknown) => e);
      assert.ok(err instanceof RateLimitError, String(err));
    } finally {
      await one.stop();
    }
    assert.equal((await health()).queued, 0);
  });

  it('leaves nothing behind for a client that gives up while waiting', async () => {
    const holder = client('holder 2');
    const held = [await holder.browsers.start(), await holder.browsers.start()];
    const quitter = client('quitter');
    const controller = new AbortController();
    const waiting = quitter.browsers.start({ queue: 20, signal: controller.signal });
    await eventually(health, (h) => h.queued === 1);
    controller.abort(new Error('gave up'));
    await assert.rejects(waiting, /gave up/);
    const left = await eventually(health, (h) => h.queued === 0);
    assert.equal(left.queued, 0, 'out of the queue');
    await held[0]!.stop();
    // The room that came is not taken by the client that left.
    const after = await eventually(health, (h) => h.live === 1, 3000);
    assert.equal(after.live, 1);
    assert.deepEqual(await quitter.browsers.list(), [], 'no browser was started for it');
    await held[1]!.stop();
  });

  it('takes turns across keys: one key’s burst does not starve another’s single start', async () => {
    const holder = client('holder 3');
    const held = [await holder.browsers.start(), await holder.browsers.start()];
    const burst = client('burst');
    const single = client('single start');
    const order: string[] = [];
    const got: RemoteBrowser[] = [];
    const wait = (who: Periscope, label: string) =>
      who.browsers.start({ queue: 30 }).then((b) => {
        order.push(label);
        got.push(b);
        return b;
      });
    const starts = [wait(burst, 'burst 1')];
    await eventually(health, (h) => h.queued === 1);
    starts.push(wait(burst, 'burst 2'));
    await eventually(health, (h) => h.queued === 2);
    starts.push(wait(burst, 'burst 3'));
    await eventually(health, (h) => h.queued === 3);
    starts.push(wait(single, 'single'));
    await eventually(health, (h) => h.queued === 4);
    // Room for one at a time: each new room is given, and its browser started, before the next comes.
    const rooms = [() => held[0]!.stop(), () => held[1]!.stop(), () => got[0]!.stop(), () => got[1]!.stop()];
    for (const [i, free] of rooms.entries()) {
      await free();
      const served = await eventually(
        () => order.length,
        (n) => n > i,
        15_000,
      );
      assert.equal(served, i + 1, `room ${i + 1} was given`);
    }
    await Promise.all(starts);
    assert.deepEqual(
      order,
      ['burst 1', 'single', 'burst 2', 'burst 3'],
      'the single start is served in the second round, the burst in its order',
    );
    await Promise.all(got.slice(2).map((b) => b.stop()));
  });
});
