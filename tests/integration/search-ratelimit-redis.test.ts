import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { openRedis, REDIS_PREFIX } from '#shared/redis.ts';
import { eventually } from '../helpers/eventually.ts';
import { redisSkip, startRedis, type TestRedis } from '../helpers/redis.ts';
import { search } from '../helpers/search.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const SECRET = 'a-cluster-secret-of-at-least-32-characters';

/**
 * Two real service processes on one Redis (REDIS_URL) share each key's search limit (decision 0092).
 * The keys themselves are still in each node's DATA_DIR here: the second node starts on a copy of
 * the first one's key database.
 */
describe('POST /v0/search on two nodes sharing Redis', { skip: redisSkip() }, () => {
  let redis: TestRedis;
  const nodes: ServiceProcess[] = [];
  let token: string;
  let keyId: string;

  before(async () => {
    redis = await startRedis();
    const env = { BROWSER_POOL_SIZE: '0', REDIS_URL: redis.url, CLUSTER_SECRET: SECRET };
    nodes.push(await startService({ ...env, NODE_ID: 'node-1' }));
    ({ token, id: keyId } = (nodes[0] as ServiceProcess).createKey({ name: 'shared' }));
    const second = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const db = new DatabaseSync(join((nodes[0] as ServiceProcess).dataDir, 'service.db'));
    db.exec(`VACUUM INTO '${join(second, 'service.db')}'`);
    db.close();
    nodes.push(await startService({ ...env, NODE_ID: 'node-2', DATA_DIR: second }));
  });
  after(async () => {
    for (const n of nodes) await n.stop();
    await redis?.stop();
  });

  it('41 searches at once spread over both nodes: exactly 40 answered, one 429 with Retry-After and the same headers', async () => {
    const answers = await Promise.all(
      Array.from({ length: 41 }, (_, i) => search((nodes[i % 2] as ServiceProcess).url, token, { query: 'kettle' })),
    );
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 200).length, 40, statuses.join(' '));
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(refused.length, 1);
    const r = refused[0] as (typeof answers)[number];
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 61, String(retry));
    assert.equal(r.headers.get('x-ratelimit-limit'), '40');
    assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(r.headers.get('x-ratelimit-reset'), String(retry));
    assert.equal(r.headers.get('ratelimit-policy'), '"per-key";q=40;w=60');
    assert.equal(r.headers.get('ratelimit'), `"per-key";r=0;t=${retry}`);
    // Every answered one saw a different count: the nodes shared one window.
    assert.deepEqual(
      answers
        .filter((a) => a.status === 200)
        .map((a) => Number(a.headers.get('x-ratelimit-remaining')))
        .sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, i) => i),
    );
    // And both nodes now refuse this key.
    for (const n of nodes) assert.equal((await search(n.url, token, { query: 'kettle' })).status, 429);
  });

  it('the window lives in Redis under the key id, with an expiry', async () => {
    const client = openRedis(redis.url, 'test');
    try {
      const stored = `${REDIS_PREFIX}rate:search:${keyId}`;
      const counts = Object.values(await client.hgetall(stored)).map(Number);
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        40,
      );
      assert.ok((await client.pttl(stored)) > 0);
    } finally {
      client.disconnect();
    }
  });

  // Last: it stops Redis.
  it('Redis away: searches are refused with 503 and Retry-After, the node says why, and it still shuts down cleanly', async () => {
    const node = nodes[0] as ServiceProcess;
    const { token: fresh } = node.createKey({ name: 'fresh' });
    assert.equal((await search(node.url, fresh, { query: 'kettle' })).status, 200);
    await redis.stop();
    const r = await search(node.url, fresh, { query: 'kettle' });
    assert.equal(r.status, 503);
    assert.equal(r.json.code, 'unavailable');
    assert.equal(r.headers.get('retry-after'), '5');
    assert.equal(r.headers.get('x-ratelimit-limit'), null);
    const said = () => node.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('rate limits cannot be checked in Redis'));
    assert.ok(await eventually(said, (v) => v), 'the node logs why');
    assert.equal(await node.stop(), 0);
  });
});
