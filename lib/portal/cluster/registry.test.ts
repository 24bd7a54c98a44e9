import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openRedis, redisReady, type RedisClient } from '#shared/redis.ts';
import { eventually } from '../../../tests/helpers/eventually.ts';
import { redisSkip, startRedis, type TestRedis } from '../../../tests/helpers/redis.ts';
import type { HeldRow } from '../live/held-row.ts';
import { NodeRegistry, PORTAL_KEYS, type NodeCounts } from './registry.ts';

const none: NodeCounts = { teams: {}, users: {} };
let n = 0;
const row = (teamId: string, over: Partial<HeldRow> = {}): HeldRow => ({
  id: `inst_${String(++n).padStart(16, '0')}`,
  teamId,
  nodeId: null,
  browserId: `br_${n}`,
  startedBy: { userId: 'usr_ann', name: 'Ann' },
  keyId: 'key_1',
  keyName: 'ci',
  name: `Browser ${n}`,
  startedAt: 1000 + n,
  attached: false,
  title: '',
  url: '',
  viewers: [],
  ...over,
});

/** The registry on a real Redis: who holds what, heartbeats that expire, dead nodes taken away once. */
describe('the portal nodes’ registry', { skip: redisSkip() }, () => {
  let redis: TestRedis;
  const clients: RedisClient[] = [];
  async function client(): Promise<RedisClient> {
    const c = openRedis(redis.url, 'registry-test');
    c.on('error', () => {});
    clients.push(c);
    await redisReady(c);
    return c;
  }
  const node = async (nodeId: string, ttlMs = 60_000, boot = 'b1') =>
    new NodeRegistry(await client(), { nodeId, nodeUrl: `http://${nodeId}.test:3000`, boot, ttlMs });

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  it('lists a team’s rows of every live node, finds one by id, and counts the other nodes’ browsers', async () => {
    const a = await node('a1');
    const b = await node('b1');
    await a.register({ teams: { team_x: 1 }, users: { usr_ann: 1 } });
    await b.register(none);
    const mine = row('team_x');
    await a.put([mine, row('team_y')]);
    const seen = await b.teamRows('team_x');
    assert.deepEqual(
      seen.map((r) => [r.row.id, r.row.nodeId, r.nodeUrl]),
      [[mine.id, 'a1', 'http://a1.test:3000']],
    );
    assert.equal((await b.locate(mine.id))?.row.name, mine.name);
    assert.deepEqual(await b.elsewhere('team_x', 'usr_ann'), { team: 1, user: 1 });
    assert.deepEqual(await a.elsewhere('team_x', 'usr_ann'), { team: 0, user: 0 }, 'a node does not count itself');
    await a.remove(mine.id, 'team_x');
    assert.deepEqual(await b.teamRows('team_x'), []);
    assert.equal(await b.locate(mine.id), null);
  });

  it('hides a node’s rows once its heartbeat expires, and gives them to exactly one of the nodes that notice', async () => {
    const dying = await node('d1', 300);
    await dying.register(none);
    const lost = row('team_d');
    await dying.put([lost]);
    const [b, c] = [await node('b2'), await node('c2')];
    await b.register(none);
    await c.register(none);
    assert.equal((await b.teamRows('team_d')).length, 1);
    // No more heartbeats: within the ttl the rows are no longer listed, nor found.
    await eventually(
      () => b.teamRows('team_d'),
      (rows) => rows.length === 0,
    );
    assert.equal(await b.locate(lost.id), null);
    const [fromB, fromC] = await Promise.all([b.reapDead(), c.reapDead()]);
    assert.deepEqual(
      [...fromB, ...fromC].map((r) => r.id),
      [lost.id],
      'one node, and only one, records the lost browser',
    );
    assert.equal(await (await client()).exists(PORTAL_KEYS.held('d1'), PORTAL_KEYS.team('team_d')), 0);
    assert.equal(await (await client()).hget(PORTAL_KEYS.where, lost.id), null);
    assert.deepEqual(await b.reapDead(), []);
  });

  it('tells a node that came back after being taken as dead, so it lets go of its browsers', async () => {
    const slow = await node('s1', 200);
    const other = await node('o1');
    await slow.register(none);
    await slow.put([row('team_s')]);
    await eventually(
      () => other.reapDead(),
      (rows) => rows.length === 1,
    );
    assert.equal(await slow.beat(none), 'reaped');
    assert.equal(await slow.beat(none), 'ok');
  });

  it('tells a node that Redis forgot (restarted empty) to write its rows again, without taking it as dead', async () => {
    const a = await node('f1');
    await a.register(none);
    await a.put([row('team_f')]);
    const raw = await client();
    await raw.flushdb();
    assert.equal(await a.beat(none), 'lost');
    assert.equal(await a.beat(none), 'ok');
  });

  it('a restarted node takes away what its predecessor left at once, before its heartbeat expired', async () => {
    const before = await node('r1', 60_000, 'boot-1');
    await before.register(none);
    const left = [row('team_r'), row('team_r')];
    await before.put(left);
    // The process dies (kill -9): nothing is cleaned up. A new process with the same node id starts.
    const after = await node('r1', 60_000, 'boot-2');
    const taken = await after.register(none);
    assert.deepEqual(taken.map((r) => r.id).sort(), left.map((r) => r.id).sort());
    assert.deepEqual(await after.teamRows('team_r'), []);
    for (const r of left) assert.equal(await after.locate(r.id), null);
  });

  it('ignores rows that do not hold up, and claims a nonce once', async () => {
    const a = await node('v1');
    await a.register(none);
    const raw = await client();
    await raw.hset(PORTAL_KEYS.team('team_v'), 'inst_0000000000000bad', '{"id":"inst_0000000000000bad","teamId":"team_v"}');
    await raw.hset(PORTAL_KEYS.team('team_v'), 'inst_0000000000000wut', 'not json');
    assert.deepEqual(await a.teamRows('team_v'), []);
    assert.equal(await a.claimNonce('n1', 10_000), true);
    assert.equal(await a.claimNonce('n1', 10_000), false);
  });
});
