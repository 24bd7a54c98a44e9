import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { recordedRunner, startServiceCluster, type ServiceCluster } from '../helpers/cluster.ts';
import { endAndWaitForSave, listProfiles, logIn, startLoginSite, startWith, whoIsLoggedIn } from '../helpers/profiles.ts';

/**
 * Saved profiles on several nodes (decision 0106): two real service nodes on one Redis share the
 * profiles folder, as nodes on several machines share a volume, and seal with the cluster's secret.
 */
const shared = mkdtempSync(join(tmpdir(), 'periscope-profiles-shared-'));
const cluster = await startServiceCluster(2, () => ({
  BROWSER_POOL_SIZE: '0',
  BROWSER_CAPACITY: '1',
  BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
  BROWSER_PROFILES_DIR: shared,
}));
const skip = typeof cluster === 'string' ? cluster : false;

describe('saved profiles across service nodes', { skip }, () => {
  const c = cluster as ServiceCluster;
  const node = (i: number) => c.nodes[i - 1]!;
  let site: Awaited<ReturnType<typeof startLoginSite>>;

  before(async () => {
    site = await startLoginSite();
  });
  after(async () => {
    await site?.close();
    await c.stop();
    rmSync(shared, { recursive: true, force: true });
  });

  it('starts a browser on node 2 logged in as the profile node 1 saved, and holds a persisting profile on every node at once', async () => {
    const { token } = node(1).createKey({ name: 'across-nodes' });
    const first = await startWith(node(1).wsUrl, token, 'profile=team&persist=1');
    assert.equal(await recordedRunner(c.redis.url, first.id), 'node-1');
    await logIn(node(1).url, first, site.url, 'alice');
    // Node 2 knows the profile is held by node 1's browser.
    const refused = await startWith(node(2).wsUrl, token, 'profile=team&persist=1').then(
      () => null,
      (err: { status?: number }) => err.status,
    );
    assert.equal(refused, 409);
    const saved = await endAndWaitForSave(node(2).url, token, first, 'team');
    assert.ok(saved && saved.bytes > 0);

    const second = await startWith(node(2).wsUrl, token, 'profile=team&persist=1');
    assert.equal(await recordedRunner(c.redis.url, second.id), 'node-2');
    assert.deepEqual(await whoIsLoggedIn(node(2).url, second, site.url), { cookie: 'session=alice', token: 'token-of-alice' });
    assert.equal((await listProfiles(node(1).url, token)).find((p) => p.name === 'team')?.inUse, true);
    await endAndWaitForSave(node(1).url, token, second, 'team');
    const gone = await fetch(`${node(1).url}/v0/profiles/team`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(gone.status, 204);
    assert.deepEqual(await listProfiles(node(2).url, token), []);
  });
});
