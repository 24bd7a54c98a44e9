import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import pino from 'pino';
import { openRedis, redisReady, type RedisClient } from '#shared/redis.ts';
import { redisForTests } from '../../../tests/helpers/redis.ts';
import { eventually } from '../../../tests/helpers/eventually.ts';
import { ClusterRegistry, placement, registryKeys, type NodeInfo, type RegistryOptions } from './registry.ts';

const { redis: server, skip } = await redisForTests();
const clients: RedisClient[] = [];
const registries: ClusterRegistry[] = [];
// Each test's nodes leave when it ends: a watcher left running would reap the next test's nodes
// before that test's own watcher could (each lost node is reaped by exactly one node).
afterEach(async () => {
  for (const r of registries.splice(0)) await r.close();
});
after(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

async function node(nodeId: string, opts: Partial<RegistryOptions> = {}): Promise<ClusterRegistry> {
  const client = openRedis(server!.url, nodeId);
  clients.push(client);
  await redisReady(client);
  const registry = new ClusterRegistry(client, {
    nodeId,
    nodeUrl: `http://${nodeId}.test:3100`,
    capacity: 10,
    load: () => 0,
    onNodeLost: async () => {},
    log: pino({ level: 'silent' }),
    ...opts,
  });
  registries.push(registry);
  return registry;
}

let n = 0;
const browserId = () => `br_${String(++n).padStart(32, '0')}`;

describe('ClusterRegistry', { skip }, () => {
  it("holds a key's browser limit exactly across nodes, however many start at once", async () => {
    const nodes = await Promise.all(['a1', 'a2', 'a3'].map((id) => node(id)));
    await Promise.all(nodes.map((r) => r.start()));
    const ids = Array.from({ length: 30 }, browserId);
    const admitted = await Promise.all(ids.map((id, i) => nodes[i % 3]!.admit(id, 'key_limit', 5)));
    assert.equal(admitted.filter(Boolean).length, 5);
    assert.equal(await nodes[0]!.countFor('key_limit'), 5);
    // Another key is counted apart.
    assert.equal(await nodes[1]!.admit(browserId(), 'key_other', 5), true);
    // A released browser frees its place, once.
    const first = ids[admitted.indexOf(true)]!;
    const owner = await nodes[2]!.ownerOf(first);
    assert.ok(owner && ['a1', 'a2', 'a3'].includes(owner.id));
    await nodes[0]!.release(first);
    await nodes[1]!.release(first);
    assert.equal(await nodes[0]!.countFor('key_limit'), 4);
    assert.equal(await nodes[0]!.ownerOf(first), null);
    assert.equal(await nodes[0]!.admit(browserId(), 'key_limit', 5), true);
    assert.equal(await nodes[0]!.admit(browserId(), 'key_limit', 5), false);
  });

  it('takes a draining node out of placement at once: it says it has no room, and stays alive', async () => {
    const [d1, d2] = await Promise.all(['d1', 'd2'].map((id) => node(id)));
    await Promise.all([d1!.start(), d2!.start()]);
    const before = (await d1!.nodes()).filter((x) => x.id.startsWith('d'));
    assert.deepEqual(
      placement(before, 'd1').map((x) => x.id),
      ['d1', 'd2'],
    );
    await d1!.drain();
    const after = (await d2!.nodes()).filter((x) => x.id.startsWith('d'));
    assert.deepEqual(after.map((x) => [x.id, x.capacity]).sort(), [
      ['d1', 0],
      ['d2', 10],
    ]);
    assert.deepEqual(
      placement(after, 'd1').map((x) => x.id),
      ['d2'],
      'new browsers go to the other node, even asked on d1',
    );
    await d1!.beat();
    assert.equal((await d2!.nodes()).find((x) => x.id === 'd1')?.capacity, 0, 'and it keeps saying so');
  });

  it('says which node runs a browser and where to reach it, with each live node and its load', async () => {
    let load = 3;
    const b1 = await node('b1', { load: () => load });
    await b1.start();
    const id = browserId();
    assert.equal(await b1.admit(id, 'key_b', 5), true);
    const owner = await b1.ownerOf(id);
    assert.equal(owner?.id, 'b1');
    assert.equal(owner?.url, 'http://b1.test:3100');
    load = 7;
    await b1.beat();
    const seen = (await b1.nodes()).find((x) => x.id === 'b1');
    assert.equal(seen?.load, 7);
    assert.equal(seen?.capacity, 10);
    assert.equal(await b1.ownerOf(browserId()), null);
  });

  it("reaps a node whose heartbeat stopped: its browsers are ended once, on one node, and the others' stay", async () => {
    const lost: { by: string; node: string; ids: string[] }[] = [];
    const watcher = (by: string) => node(by, { reapMs: 50, onNodeLost: async (nodeId, ids) => void lost.push({ by, node: nodeId, ids }) });
    const [w1, w2] = await Promise.all([watcher('c-w1'), watcher('c-w2')]);
    // The dying node beats once, then never again (as after kill -9).
    const dying = await node('c-dying', { ttlMs: 300, heartbeatMs: 3_600_000 });
    await Promise.all([w1.start(), w2.start(), dying.start()]);
    const theirs = [browserId(), browserId()];
    const ours = browserId();
    for (const id of theirs) assert.equal(await dying.admit(id, 'key_c', 5), true);
    assert.equal(await w1.admit(ours, 'key_c', 5), true);
    assert.equal(
      await eventually(
        () => lost.length,
        (count) => count > 0,
      ),
      1,
    );
    assert.equal(lost[0]!.node, 'c-dying');
    assert.deepEqual([...lost[0]!.ids].sort(), [...theirs].sort());
    assert.equal(await w1.countFor('key_c'), 1);
    assert.equal((await w2.ownerOf(ours))?.id, 'c-w1');
    assert.equal(await w2.ownerOf(theirs[0]!), null);
    assert.ok(!(await w1.nodes()).some((x) => x.id === 'c-dying'));
    // Some time later, nobody reaps it again.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(lost.length, 1);
  });

  it('a node reaped while it lived joins again at its next beat, and learns which of its browsers the cluster forgot', async () => {
    const lost: string[] = [];
    const watcher = await node('e-w', { reapMs: 50, onNodeLost: async (nodeId) => void lost.push(nodeId) });
    let rejoined = 0;
    let forgotten: string[] = [];
    const before = [browserId(), browserId()];
    const after = browserId();
    // Its beats stop for longer than its heartbeat lives (a stall), and then come again (by hand).
    const stalled: ClusterRegistry = await node('e-stalled', {
      ttlMs: 300,
      heartbeatMs: 3_600_000,
      onRejoined: async (why) => {
        rejoined++;
        assert.equal(why, 'reaped');
        forgotten = await stalled.forgotten([...before, after]);
      },
    });
    await Promise.all([watcher.start(), stalled.start()]);
    for (const id of before) assert.equal(await stalled.admit(id, 'key_e', 5), true);
    await eventually(
      () => lost.length,
      (count) => count > 0,
    );
    assert.deepEqual(lost, ['e-stalled']);
    assert.ok(!(await watcher.nodes()).some((x) => x.id === 'e-stalled'), 'reaped');
    // Meanwhile a browser starts on it, as the cluster knows it does.
    assert.equal(await stalled.admit(after, 'key_e', 5), true);
    await stalled.beat();
    assert.ok(
      (await watcher.nodes()).some((x) => x.id === 'e-stalled'),
      'among the nodes again',
    );
    assert.equal(rejoined, 1);
    assert.deepEqual(forgotten.sort(), [...before].sort());
    // Its next beats find it a member, and the watcher reaps it no more while it beats.
    await stalled.beat();
    await new Promise((r) => setTimeout(r, 150));
    await stalled.beat();
    assert.equal(rejoined, 1);
    assert.deepEqual(lost, ['e-stalled']);
    assert.equal((await watcher.ownerOf(after))?.id, 'e-stalled');
  });

  it('a node that Redis forgot (it lost its data) joins again and records its browsers again', async () => {
    let told: string | null = null;
    const kept = [browserId(), browserId()];
    const forgotten: ClusterRegistry = await node('f-forgotten', {
      heartbeatMs: 3_600_000,
      onRejoined: async (why) => {
        told = why;
        await forgotten.restore(kept.map((id) => ({ id, keyId: 'key_f', startedAt: 1 })));
      },
    });
    await forgotten.start();
    for (const id of kept) assert.equal(await forgotten.admit(id, 'key_f', 5), true);
    // Redis loses all it held of the node, as when it restarts empty (and no node reaped it).
    const raw = openRedis(server!.url, 'f-raw');
    clients.push(raw);
    await raw.srem(registryKeys.nodes, 'f-forgotten');
    await raw.del(registryKeys.nodeBrowsers('f-forgotten'), registryKeys.keyBrowsers('key_f'), ...kept.map(registryKeys.browser));
    assert.equal(await forgotten.countFor('key_f'), 0);
    await forgotten.beat();
    assert.equal(told, 'forgotten');
    assert.ok(
      (await forgotten.nodes()).some((x) => x.id === 'f-forgotten'),
      'among the nodes again',
    );
    assert.equal(await forgotten.countFor('key_f'), 2, "its browsers count against their key's limit again");
    assert.equal((await forgotten.ownerOf(kept[0]!))?.id, 'f-forgotten');
    assert.deepEqual(await forgotten.forgotten(kept), []);
  });

  it('a restarted node takes over its id and forgets what its predecessor left', async () => {
    const before = await node('d1', { heartbeatMs: 3_600_000 });
    await before.start();
    const left = [browserId(), browserId()];
    for (const id of left) await before.admit(id, 'key_d', 5);
    const again = await node('d1');
    assert.deepEqual([...(await again.start())].sort(), [...left].sort());
    assert.equal(await again.countFor('key_d'), 0);
    assert.equal(await again.ownerOf(left[0]!), null);
  });
});

describe('placement', () => {
  const info = (id: string, load: number, capacity = 10): NodeInfo => ({ id, url: `http://${id}`, capacity, load, startedAt: 0 });

  it('puts a browser on the least loaded node with room, this node first among equals', () => {
    assert.deepEqual(
      placement([info('a', 5), info('b', 2), info('c', 2), info('self', 2)], 'self').map((x) => x.id),
      ['self', 'b', 'c', 'a'],
    );
    // By share of capacity: 4 of 20 is less loaded than 3 of 10.
    assert.deepEqual(
      placement([info('a', 3), info('b', 4, 20)], 'x').map((x) => x.id),
      ['b', 'a'],
    );
  });

  it('leaves out full nodes, and has nowhere when all are full', () => {
    assert.deepEqual(
      placement([info('a', 10), info('b', 9)], 'a').map((x) => x.id),
      ['b'],
    );
    assert.deepEqual(placement([info('a', 10), info('b', 12)], 'a'), []);
  });
});
