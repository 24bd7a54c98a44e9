import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { closeStart, debuggerUrl, eventually, openStart, refusedStart, type StartedBrowser } from '../helpers/browser.ts';
import { startServiceCluster, type ServiceCluster } from '../helpers/cluster.ts';
import { startPageServer } from '../helpers/pages.ts';

/**
 * Any node serves any browser (issue 15, items 2, 3 and 5): three real service nodes on one Redis,
 * each with real, sandboxed Chromium.
 */
const cluster = await startServiceCluster(3, () => ({ BROWSER_POOL_SIZE: '0', BROWSER_CAPACITY: '2', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' }));
const skip = typeof cluster === 'string' ? cluster : false;

describe('a cluster of service nodes', { skip }, () => {
  const c = cluster as ServiceCluster;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  const open: StartedBrowser[] = [];
  const node = (i: number) => c.nodes[i - 1]!;

  before(async () => {
    pages = await startPageServer();
  });
  after(async () => {
    for (const s of open) await closeStart(node(1).url, s).catch(() => {});
    await pages?.close();
    await c.stop();
  });

  it('drives a browser started through node 1 with Playwright through node 3', async () => {
    const { token } = node(1).createKey({ name: 'through-nodes' });
    const started = await openStart(node(1).wsUrl, token);
    open.push(started);
    // node 3 does not run it: its /json/version and DevTools socket reach node 1.
    const version = await fetch(`${node(3).url}/json/version`, { headers: started.headers });
    assert.equal(version.status, 200);
    const url = (await version.json()) as { webSocketDebuggerUrl: string };
    const through3 = url.webSocketDebuggerUrl.replace(new URL(url.webSocketDebuggerUrl).origin, node(3).wsUrl);
    const browser = await chromium.connectOverCDP(through3, { headers: started.headers });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${pages.url}?through-node-3`);
      assert.equal(new URL(page.url()).search, '?through-node-3');
      assert.equal(await page.evaluate(() => 6 * 7), 42);
    } finally {
      await browser.close();
    }
    // The same browser, seen from node 2 (its debugger address), is the same instance.
    assert.equal(await debuggerUrl(node(2).url, started.headers), url.webSocketDebuggerUrl);
  });

  it("holds a key's browser limit across nodes, and capacity across the cluster", async () => {
    const { token } = node(2).createKey({ name: 'limited', maxInstances: 2 });
    const a = await openStart(node(1).wsUrl, token);
    const b = await openStart(node(2).wsUrl, token);
    open.push(a, b);
    const third = await refusedStart(node(3).wsUrl, { authorization: `Bearer ${token}` });
    assert.equal(third.status, 429);
    await closeStart(node(1).url, a);
    open.splice(open.indexOf(a), 1);
    // Its place is free again, on every node.
    const again = await eventually(
      () => openStart(node(3).wsUrl, token).catch((err: Error & { status?: number }) => err.status ?? 0),
      (v) => typeof v !== 'number',
    );
    assert.notEqual(typeof again, 'number', `a browser after one was closed: ${String(again)}`);
    open.push(again as StartedBrowser);
  });
});
