import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { closeStart, debuggerUrl, eventually, openStart, type StartedBrowser } from '../helpers/browser.ts';
import { recordedRunner, startServiceCluster, type ServiceCluster } from '../helpers/cluster.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startConnectProxy, type FixtureProxy } from '../helpers/upstream-proxies.ts';

/** Two real service nodes of one browser each: a start that node 1 has no room for is placed on node 2, header and all. */
const cluster = await startServiceCluster(2, () => ({
  BROWSER_POOL_SIZE: '0',
  BROWSER_CAPACITY: '1',
  BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
}));
const skip = typeof cluster === 'string' ? cluster : false;

describe('X-Browser-Proxy on a start placed on another node', { skip }, () => {
  const c = cluster as ServiceCluster;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let proxy: FixtureProxy;
  const open: StartedBrowser[] = [];
  const node = (i: number) => c.nodes[i - 1]!;

  before(async () => {
    pages = await startPageServer();
    proxy = await startConnectProxy({ username: 'placed', password: 'cluster-planted-secret' });
  });
  after(async () => {
    for (const s of open) await closeStart(node(1).url, s).catch(() => {});
    await proxy?.close();
    await pages?.close();
    await c.stop();
  });

  it('carries the header to the node that runs the browser, whose traffic then goes through the proxy', async () => {
    const { token } = node(1).createKey({ name: 'placed', maxInstances: 5 });
    const start = (through: number, extra: Record<string, string> = {}) =>
      eventually(
        () => openStart(node(through).wsUrl, token, extra).catch(() => null),
        (v) => v !== null,
        15_000,
      );
    // The first browser fills one node; the second, asked of that full node, must be placed on the other.
    const first = await start(1);
    assert.ok(first);
    open.push(first);
    const firstNode = await recordedRunner(c.redis.url, first.id);
    const full = firstNode === 'node-1' ? 1 : 2;
    const second = await start(full, { 'x-browser-proxy': `http://placed:cluster-planted-secret@127.0.0.1:${proxy.port}` });
    assert.ok(second);
    open.push(second);
    const secondNode = await recordedRunner(c.redis.url, second.id);
    assert.equal(secondNode, full === 1 ? 'node-2' : 'node-1', 'the start was placed on the other node');

    const browser = await chromium.connectOverCDP(await debuggerUrl(node(full).url, second.headers), { headers: second.headers });
    try {
      const page = await browser.contexts()[0]!.newPage();
      const before = proxy.tunnels.length;
      assert.equal((await page.goto(pages.url))?.status(), 200);
      assert.ok(
        proxy.tunnels.slice(before).includes(new URL(pages.url).host),
        `the page went through the proxy (browser on ${secondNode})`,
      );
    } finally {
      await browser.close();
    }
    for (const n of c.nodes) assert.ok(!JSON.stringify(n.logs).includes('cluster-planted-secret'), 'no node logged the password');
  });
});
