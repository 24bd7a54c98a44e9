import { expect, test, type Page } from '@playwright/test';
import { chromium } from 'playwright-core';
import { closeStart, debuggerUrl, eventually, openStart, refusedStart, type StartedBrowser } from '../helpers/browser.ts';
import { recordedRunner } from '../helpers/cluster.ts';
import { deploymentUnavailable, startDeployment, type Deployment } from '../helpers/deployment.ts';
import { startPageServer } from '../helpers/pages.ts';
import { newUser, signUp, teamIdOf } from '../helpers/portal.ts';

/**
 * Issue 15's cluster test: the layout of deploy/ (HAProxy from deploy/haproxy.cfg in front of three
 * service nodes and two portal nodes, PostgreSQL, Redis), every part a real server on this machine.
 * One browser a service node (BROWSER_CAPACITY=1), so that where browsers land is known.
 */
const unavailable = deploymentUnavailable();
const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
test.skip(!!unavailable && !ci, unavailable ?? '');

let d: Deployment;
let pages: Awaited<ReturnType<typeof startPageServer>>;

test.describe.configure({ mode: 'serial', timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  d = await startDeployment({ serviceEnv: { BROWSER_CAPACITY: '1' } });
  pages = await startPageServer();
});

test.afterAll(async () => {
  await pages?.close();
  await d?.stop();
});

const runner = (id: string) => recordedRunner(d.redis.url, id);

/** The requests one service node counted on a route (its own /metrics). */
async function counted(nodeUrl: string, route: string): Promise<number> {
  const text = await (await fetch(`${nodeUrl}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('periscope_http_requests_total{') && line.includes(`route="${route}"`)) n += Number(line.split(' ').pop());
  return n;
}

test('through the balancer: one search limit for all nodes, a browser driven through any node, capacity across the cluster', async () => {
  const token = d.createKey('deployment', { maxInstances: 10 });
  const auth = { authorization: `Bearer ${token}` };

  // 41 searches at once through HAProxy, answered by every node: exactly 40, one 429.
  const statuses = await Promise.all(
    Array.from({ length: 41 }, () =>
      fetch(`${d.serviceUrl}/v0/search`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'periscope' }),
      }).then((r) => r.status),
    ),
  );
  expect(statuses.filter((s) => s === 200)).toHaveLength(40);
  expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  const perNode = await Promise.all(d.services.map((s) => counted(s.url, '/v0/search')));
  expect(
    perNode.every((n) => n > 0),
    `searches per node: ${perNode.join(', ')}`,
  ).toBe(true);

  // A browser started through node 1, driven with Playwright through node 3.
  const started = await openStart(d.services[0]!.wsUrl, token);
  const version = (await (await fetch(`${d.services[2]!.url}/json/version`, { headers: started.headers })).json()) as {
    webSocketDebuggerUrl: string;
  };
  // Advertised at the balancer's address, as PUBLIC_BROWSER_URL says.
  expect(version.webSocketDebuggerUrl.startsWith(d.serviceUrl.replace('http', 'ws'))).toBe(true);
  const through3 = version.webSocketDebuggerUrl.replace(d.serviceUrl.replace('http', 'ws'), d.services[2]!.wsUrl);
  const pw = await chromium.connectOverCDP(through3, { headers: started.headers });
  const page = await (await pw.newContext()).newPage();
  await page.goto(`${pages.url}?through-node-3`);
  expect(await page.title()).toBe('Periscope test page');
  await pw.close();

  // And through the balancer, as a client sees it.
  const viaBalancer = await chromium.connectOverCDP(await debuggerUrl(d.serviceUrl, started.headers), { headers: started.headers });
  expect(viaBalancer.contexts().length).toBeGreaterThan(0);
  await viaBalancer.close();

  // One browser a node: two more fill the cluster, and the next is refused, whichever node is asked.
  const more: StartedBrowser[] = [];
  for (let i = 0; i < 2; i++)
    more.push(
      (await eventually(
        () => openStart(`${d.serviceUrl.replace('http', 'ws')}`, token).catch(() => null),
        (v) => v !== null,
        15_000,
      )) as StartedBrowser,
    );
  const all = [started, ...more];
  expect(new Set(await Promise.all(all.map((s) => runner(s.id)))).size).toBe(3);
  const full = await refusedStart(d.serviceUrl.replace('http', 'ws'), auth);
  expect(full.status).toBe(503);
  expect(String(full.body.error)).toMatch(/at capacity/);
  for (const s of all) await closeStart(d.serviceUrl, s);
});

/** Start a browser from a portal node's dashboard; returns its instance id. */
async function startFromDashboard(page: Page, base: string, teamId: string, name: string): Promise<string> {
  await page.goto(`${base}/teams/${teamId}/browsers`);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  return /\/browsers\/(inst_[\w-]+)$/.exec(page.url())![1]!;
}

test('portal nodes: a viewer on portal 2 controls a browser portal 1 holds, both dashboards list both, a lost service node ends only its browser', async ({
  browser,
}) => {
  const [p1, p2] = [d.portals[0]!.url, d.portals[1]!.url];
  const token = d.createKey('team key', { maxInstances: 10 });
  // Signed up on portal 1; the session cookie is good on portal 2 as well (one secret, one database).
  const context = await browser.newContext({ baseURL: p1 });
  const one = await context.newPage();
  await signUp(one, newUser('nodes'));
  const teamId = teamIdOf(one);
  await one.goto(`${p1}/teams/${teamId}/keys`);
  await one.getByRole('button', { name: 'Add existing key' }).click();
  const dialog = one.getByRole('dialog', { name: 'Add an existing key' });
  await dialog.getByLabel('Key name').fill('team key');
  await dialog.getByLabel('API key').fill(token);
  await dialog.getByRole('button', { name: 'Save key' }).click();
  await expect(one.getByRole('row').filter({ hasText: 'team key' })).toBeVisible();

  // Portal 1 holds a browser; its live view opens on portal 2.
  const held = await startFromDashboard(one, p1, teamId, 'Held by portal 1');
  await expect(one.getByTestId('control-status')).toHaveText(/You have control/);
  await one.getByRole('button', { name: 'Release control' }).click();
  await expect(one.getByTestId('control-status')).toHaveText(/Nobody has control/);
  const two = await context.newPage();
  await two.goto(`${p2}/teams/${teamId}/browsers/${held}`);
  await expect(two.getByRole('img', { name: /^Screen of/ })).toBeVisible();
  // Nobody had control, so the viewer that joined on portal 2 has it, as on the holding node.
  await expect(two.getByTestId('control-status')).toHaveText(/You have control/);
  await two.getByLabel('Address').fill(`${pages.url}?driven-from-portal-2`);
  await two.getByLabel('Address').press('Enter');
  // The service sees the page the viewer on portal 2 opened.
  const live = await eventually(
    async () => {
      const res = await fetch(`${d.serviceUrl}/v0/browsers?status=live`, { headers: { authorization: `Bearer ${token}` } });
      return ((await res.json()) as { browsers: { id: string; page: { url: string } | null }[] }).browsers;
    },
    (bs) => bs.some((b) => b.page?.url.endsWith('?driven-from-portal-2')),
    20_000,
  );
  const heldBrowser = live.find((b) => b.page?.url.endsWith('?driven-from-portal-2'));
  expect(heldBrowser).toBeTruthy();

  // Portal 2 holds another; either dashboard lists both.
  const other = await context.newPage();
  await startFromDashboard(other, p2, teamId, 'Held by portal 2');
  for (const base of [p1, p2]) {
    const dash = await context.newPage();
    await dash.goto(`${base}/teams/${teamId}/browsers`);
    await expect(dash.getByRole('listitem', { name: 'Held by portal 1' })).toBeVisible();
    await expect(dash.getByRole('listitem', { name: 'Held by portal 2' })).toBeVisible();
    await dash.close();
  }

  // kill -9 of the service node that runs portal 1's browser: it ends, with a reason, on every
  // dashboard; portal 2's browser (on another node: one a node) goes on.
  const node = await runner(heldBrowser!.id);
  expect(node).toMatch(/^service-[123]$/);
  const victim = d.services[Number(node!.slice('service-'.length)) - 1]!;
  victim.child.kill('SIGKILL');
  const dash = await context.newPage();
  await dash.goto(`${p2}/teams/${teamId}/browsers`);
  await expect(dash.getByRole('listitem', { name: 'Held by portal 1' })).toHaveCount(0, { timeout: 20_000 });
  await expect(dash.getByRole('table', { name: 'Ended browsers' }).getByRole('row').filter({ hasText: 'Held by portal 1' })).toBeVisible();
  await expect(dash.getByRole('listitem', { name: 'Held by portal 2' })).toBeVisible();
  await context.close();
});
