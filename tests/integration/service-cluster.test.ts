import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { closeStart, debuggerUrl, eventually, openStart, refusedStart, type StartedBrowser } from '../helpers/browser.ts';
import { signNodeRequest } from '#shared/node-signature.ts';
import { CLUSTER_SECRET, recordedRunner, startServiceCluster, type ServiceCluster } from '../helpers/cluster.ts';
import { startPageServer } from '../helpers/pages.ts';

/**
 * Any node serves any browser (issue 15, items 2, 3 and 5): three real service nodes on one Redis,
 * each with real, sandboxed Chromium.
 */
const OPERATOR_TOKEN = 'operator-token-of-the-cluster-test-0123456789';
const cluster = await startServiceCluster(3, (i) => ({
  BROWSER_POOL_SIZE: '0',
  BROWSER_CAPACITY: '1',
  BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
  SERVICE_OPERATOR_TOKEN: OPERATOR_TOKEN,
  // node-2 drains before it stops (a rolling restart); the others stop at once.
  ...(i === 1 ? { SHUTDOWN_DRAIN_SECONDS: '30' } : {}),
}));
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

  it('answers the operator interface for keys alike on every node (decision 0107)', async () => {
    const operator = (i: number, method: string, path = '', body?: unknown) =>
      fetch(`${node(i).url}/v0/operator/keys${path}`, {
        method,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const use = (i: number, token: string) => fetch(`${node(i).url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } });
    const created = await operator(1, 'POST', '', { name: 'issued on node 1' });
    assert.equal(created.status, 201);
    const { key, token } = (await created.json()) as { key: { id: string }; token: string };
    assert.equal((await use(2, token)).status, 200, 'node 2 accepts it');
    const listed = (await (await operator(3, 'GET')).json()) as { keys: { id: string }[] };
    assert.ok(
      listed.keys.some((k) => k.id === key.id),
      'node 3 lists it',
    );
    assert.equal(
      ((await (await operator(2, 'PATCH', `/${key.id}`, { record: true })).json()) as { key: { record: boolean } }).key.record,
      true,
    );
    assert.equal(((await (await operator(1, 'GET', `/${key.id}`)).json()) as { key: { record: boolean } }).key.record, true);
    assert.equal((await operator(3, 'DELETE', `/${key.id}`)).status, 200);
    for (const i of [1, 2, 3]) assert.equal((await use(i, token)).status, 401, `node ${i} refuses it at once`);
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
      // Node 2 lists it as live, with the page node 1 sees in it.
      const res = await fetch(`${node(2).url}/v0/browsers?status=live`, { headers: { authorization: `Bearer ${token}` } });
      const { browsers } = (await res.json()) as { browsers: { id: string; status: string; page: { url: string } | null }[] };
      const listed = browsers.find((b) => b.id === started.id);
      assert.equal(listed?.status, 'live');
      assert.match(listed?.page?.url ?? '', /\?through-node-3$/);
    } finally {
      await browser.close();
    }
    // The same browser, seen from node 2 (its debugger address), is the same instance.
    assert.equal(await debuggerUrl(node(2).url, started.headers), url.webSocketDebuggerUrl);
    // A file put through node 3 (streamed on to node 1) is listed through node 2, and goes with a stop through node 2.
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    const put = await fetch(`${node(3).url}/v0/browser/uploads/big.bin`, { method: 'PUT', headers: started.headers, body: bytes });
    assert.equal(put.status, 201);
    const listed = (await (await fetch(`${node(2).url}/v0/browser/uploads`, { headers: started.headers })).json()) as {
      files: { name: string; size: number }[];
    };
    assert.deepEqual(
      listed.files.map((f) => [f.name, f.size]),
      [['big.bin', bytes.length]],
    );
    const stop = await fetch(`${node(2).url}/v0/browsers/${started.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(stop.status, 204);
    assert.equal((await started.closed).code, 4410);
    open.splice(open.indexOf(started), 1);
  });

  const runner = (id: string) => recordedRunner(c.redis.url, id);
  /** A browser started through node 1, once placement finds room (a node that just ended one may still say it is full). */
  async function startThroughNode1(token: string): Promise<StartedBrowser> {
    const started = await eventually(
      () => openStart(node(1).wsUrl, token).catch(() => null),
      (v) => v !== null,
      15_000,
    );
    assert.ok(started, 'a browser started through node 1');
    return started;
  }
  /** Drive `started` with Playwright through node 1 (whichever node runs it): a page opens and navigates. */
  async function driveThroughNode1(started: StartedBrowser, tag: string): Promise<void> {
    const pw = await chromium.connectOverCDP(await debuggerUrl(node(1).url, started.headers), { headers: started.headers });
    try {
      const page = await (await pw.newContext()).newPage();
      await page.goto(`${pages.url}?${tag}`);
      assert.equal(new URL(page.url()).search, `?${tag}`);
    } finally {
      await pw.close();
    }
  }
  /** Browser `id` as node 1 lists it for its key, once it is listed as ended (within 20 s). */
  async function endedAsListed(token: string, id: string): Promise<{ id: string; status: string; endReason: string | null } | undefined> {
    return eventually(
      async () => {
        const res = await fetch(`${node(1).url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { browsers: { id: string; status: string; endReason: string | null }[] };
        return body.browsers.find((b) => b.id === id);
      },
      (b) => b?.status === 'ended',
      20_000,
    );
  }
  async function closeAll(): Promise<void> {
    for (const s of open.splice(0)) await closeStart(node(1).url, s).catch(() => {});
  }

  it("holds a key's browser limit across nodes", async () => {
    await closeAll();
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

  it('places browsers on the nodes with room, and refuses when every node is full', async () => {
    await closeAll();
    const { token } = node(1).createKey({ name: 'filling', maxInstances: 10 });
    // One browser a node (BROWSER_CAPACITY=1): three starts through node 1 land on three nodes.
    for (let i = 0; i < 3; i++) open.push(await startThroughNode1(token));
    const runners = await Promise.all(open.map((s) => runner(s.id)));
    assert.deepEqual([...runners].sort(), ['node-1', 'node-2', 'node-3']);
    const full = await refusedStart(node(2).wsUrl, { authorization: `Bearer ${token}` });
    assert.equal(full.status, 503);
    assert.match(String(full.body.error), /at capacity/);
    await closeAll();
  });

  it("reads a recording, and searches a key's recordings, on whichever node answers", async () => {
    await closeAll();
    const made = node(1).keysCli(['create', '--name', 'recorded-across', '--record']);
    assert.equal(made.status, 0, made.stderr);
    const token = made.stdout.trim().split('\n').pop() as string;
    const headers = { authorization: `Bearer ${token}` };
    // Two recorded sessions, on node 2 and node 3 (each started through the node it runs on).
    const ids: string[] = [];
    for (const i of [2, 3]) {
      const started = await openStart(node(i).wsUrl, token);
      assert.equal(await runner(started.id), `node-${i}`);
      const pw = await chromium.connectOverCDP(await debuggerUrl(node(i).url, started.headers), { headers: started.headers });
      const page = await (await pw.newContext()).newPage();
      await page.goto(`${pages.url}?recorded-on-${i}`);
      await pw.close();
      await closeStart(node(i).url, started);
      ids.push(started.id);
    }
    // Node 1 holds neither: it reads each from the node that recorded it.
    for (const [n, id] of ids.entries()) {
      const res = await eventually(
        () => fetch(`${node(1).url}/v0/browsers/${id}/recording`, { headers }),
        (r) => r.status === 200,
        10_000,
      );
      assert.equal(res.status, 200);
      const body = (await res.json()) as { events: { type: string; url?: string }[] };
      assert.ok(
        body.events.some((e) => e.type === 'request' && e.url?.endsWith(`?recorded-on-${n + 2}`)),
        `events of ${id}`,
      );
    }
    // One search on node 1 finds the matches of both, newest first.
    const found = (await (await fetch(`${node(1).url}/v0/recordings/events?q=recorded-on&type=request`, { headers })).json()) as {
      matches: { browser: string; at: string }[];
      sessions: number;
      truncated: boolean;
    };
    assert.deepEqual([...new Set(found.matches.map((m) => m.browser))].sort(), [...ids].sort());
    assert.equal(found.sessions, 2);
    assert.equal(found.truncated, false);
    const times = found.matches.map((m) => m.at);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it('says on /healthz which node answers and how full each live node is, without their addresses', async () => {
    const res = await fetch(`${node(2).url}/healthz`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { cluster: { node: string; nodes: { id: string; capacity: number }[] } };
    assert.equal(body.cluster.node, 'node-2');
    assert.deepEqual(
      body.cluster.nodes.map((n) => [n.id, n.capacity]),
      [
        ['node-1', 1],
        ['node-2', 1],
        ['node-3', 1],
      ],
    );
    assert.doesNotMatch(JSON.stringify(body), /127\.0\.0\.1/);
  });

  it('refuses a request that claims to come from a node without a good signature, or a replayed one', async () => {
    const { token } = node(1).createKey({ name: 'forger' });
    const path = '/json/version';
    const good = signNodeRequest('service', CLUSTER_SECRET, 'node-2', { method: 'GET', path });
    const forgeries: [string, Record<string, string>][] = [
      ['no signature', { 'x-periscope-node': 'node-2' }],
      ['another secret', signNodeRequest('service', 'x'.repeat(40), 'node-2', { method: 'GET', path })],
      ["a portal node's", signNodeRequest('portal', CLUSTER_SECRET, 'node-2', { method: 'GET', path })],
      ['another path', signNodeRequest('service', CLUSTER_SECRET, 'node-2', { method: 'GET', path: '/v0/browsers' })],
      ['a minute old', signNodeRequest('service', CLUSTER_SECRET, 'node-2', { method: 'GET', path }, Date.now() - 60_000)],
    ];
    const ask = (headers: Record<string, string>) =>
      fetch(`${node(1).url}${path}`, { headers: { authorization: `Bearer ${token}`, 'x-browser-id': `br_${'a'.repeat(32)}`, ...headers } });
    // The signed request itself is taken (404: no such browser here), once.
    assert.equal((await ask(good)).status, 404);
    for (const [label, headers] of [...forgeries, ['replayed', good] as [string, Record<string, string>]]) {
      const res = await ask(headers);
      assert.equal(res.status, 401, label);
      assert.match(((await res.json()) as { error: string }).error, /node-to-node request refused/, label);
    }
    const start = await refusedStart(node(1).wsUrl, { authorization: `Bearer ${token}`, ...forgeries[1]![1] });
    assert.equal(start.status, 401);
  });

  it('lets a draining node keep its browser while new ones start elsewhere, even asked through it, then stop by itself', async () => {
    await closeAll();
    const { token } = node(1).createKey({ name: 'rolling', maxInstances: 10 });
    // Through node 2, with every node empty, the browser starts on node 2 itself.
    const kept = await eventually(
      () => openStart(node(2).wsUrl, token).catch(() => null),
      (v) => v !== null,
      15_000,
    );
    assert.ok(kept);
    assert.equal(await runner(kept.id), 'node-2');
    const exited = new Promise<number | null>((resolve) => node(2).child.once('exit', (code) => resolve(code)));
    node(2).child.kill('SIGTERM');
    // Every node hears at once that node-2 has no room.
    await eventually(
      async () => {
        const res = await fetch(`${node(1).url}/healthz`);
        return ((await res.json()) as { cluster: { nodes: { id: string; capacity: number }[] } }).cluster.nodes;
      },
      (nodes) => nodes.some((n) => n.id === 'node-2' && n.capacity === 0),
    );
    assert.equal((await fetch(`${node(2).url}/healthz`)).status, 503, 'the balancer passes the draining node over');
    // A browser asked for through the draining node starts on another one.
    const elsewhere = await openStart(node(2).wsUrl, token);
    open.push(elsewhere);
    assert.notEqual(await runner(elsewhere.id), 'node-2');
    // The kept browser is driven through another node as before.
    await driveThroughNode1(kept, 'kept');
    assert.equal(node(2).child.exitCode, null, 'node-2 waits for its browser');
    kept.socket.close();
    assert.equal(await exited, 0, 'and stops once it has ended');
    await closeAll();
    await c.restart(1);
  });

  it('takes back a node that stalled past its heartbeat, which ends the browsers the cluster gave up for lost', async () => {
    await closeAll();
    const { token } = node(1).createKey({ name: 'stalled', maxInstances: 10 });
    const liveNodes = async () => {
      const res = await fetch(`${node(1).url}/healthz`);
      return ((await res.json()) as { cluster: { nodes: { id: string }[] } }).cluster.nodes.map((n) => n.id);
    };
    // Asked of node 3 with every node empty, the browser starts there.
    const stalled = await eventually(
      () => openStart(node(3).wsUrl, token).catch(() => null),
      (v) => v !== null,
      15_000,
    );
    assert.ok(stalled);
    open.push(stalled);
    assert.equal(await runner(stalled.id), 'node-3');
    // The node stops for longer than its heartbeat lives (5 s), as a paused or starved process does.
    node(3).child.kill('SIGSTOP');
    try {
      const listed = await endedAsListed(token, stalled.id);
      assert.equal(listed?.endReason, 'nodeLost');
      assert.ok(!(await liveNodes()).includes('node-3'), 'reaped');
    } finally {
      node(3).child.kill('SIGCONT');
    }
    // At its next beat it joins again, and ends there the browser the others gave up for lost.
    const closed = await Promise.race([stalled.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000).unref())]);
    assert.equal(closed?.code, 4502, 'its client hears the browser was lost');
    open.splice(open.indexOf(stalled), 1);
    assert.ok((await eventually(liveNodes, (ids) => ids.includes('node-3'), 15_000)).includes('node-3'), 'among the nodes again');
    assert.equal(await runner(stalled.id), null);
    // And it takes browsers again.
    const again = await eventually(
      () => openStart(node(3).wsUrl, token).catch(() => null),
      (v) => v !== null,
      15_000,
    );
    assert.ok(again);
    open.push(again);
    assert.equal(await runner(again.id), 'node-3');
    await closeAll();
  });

  it("ends a killed node's browsers with a reason, tells its clients through other nodes, and leaves the rest alone", async () => {
    await closeAll();
    const { token } = node(1).createKey({ name: 'survivor', maxInstances: 10 });
    for (let i = 0; i < 3; i++) open.push(await startThroughNode1(token));
    const byRunner = new Map<string, StartedBrowser>();
    for (const s of open) byRunner.set((await runner(s.id)) ?? '', s);
    const onDying = byRunner.get('node-3')!;
    const survivor = byRunner.get('node-2')!;
    assert.ok(onDying && survivor);
    node(3).child.kill('SIGKILL');
    // Its /start socket went through node 1: node 1 closes it with 4502.
    const closed = await onDying.closed;
    assert.equal(closed.code, 4502);
    // Within seconds another node reaps it: the browser is listed as ended, with the reason.
    const listed = await endedAsListed(token, onDying.id);
    assert.equal(listed?.endReason, 'nodeLost');
    assert.equal(await runner(onDying.id), null);
    // The browser on node 2 is untouched, and still driven through node 1.
    await driveThroughNode1(survivor, 'survivor');
    open.splice(open.indexOf(onDying), 1);
    // Restarted under the same id, it takes its place again.
    await c.restart(2);
    await closeAll();
  });
});
