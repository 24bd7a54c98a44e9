import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { WebSocketServer } from 'ws';
import { dashboardSnapshot, listBrowsers, recordBrowserEvents, startBrowser, stopBrowser } from '#portal/live/browsers.ts';
import { addProxy, listProxies } from '#portal/keys/proxies.ts';
import { addKey } from '#portal/keys/vault.ts';
import type { PublicUser } from '#portal/accounts/accounts.ts';
import { acceptInvite, createInvite } from '#portal/teams/invites.ts';
import { TeamBrowsers, type EndedTeamBrowser } from '#portal/live/team-browsers.ts';
import { holdBrowser, StartCancelled } from '#portal/service-client/browser.ts';
import { createTeam } from '#portal/teams/teams.ts';
import { asDomainError } from '#shared/errors.ts';
import { debuggerUrl, eventually } from '../helpers/browser.ts';
import { startPageServer } from '../helpers/pages.ts';
import { account, browserPortal, memoryData, memoryVault } from '../helpers/portal-doubles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { startConnectProxy, type FixtureProxy } from '../helpers/upstream-proxies.ts';

const silent = pino({ level: 'silent' });
const PROXY = 'http://alice:s3cret@proxy.example.com:8080';
const BROWSER_ID = `br_${'A'.repeat(32)}`;

/**
 * A stand-in for the service's /start that only records each upgrade request and, unless told to
 * hold it, completes it with a browser id (so the header and query can be read as sent; the last
 * suite below proves the real service acts on them). /json/version answers an address where no DevTools listens.
 */
async function startFixture(): Promise<{
  url: string;
  upgrades: IncomingMessage[];
  closed: () => number;
  hold: boolean;
  stop: () => Promise<void>;
}> {
  const wss = new WebSocketServer({ noServer: true });
  const state = { upgrades: [] as IncomingMessage[], closedHeld: 0, hold: false };
  const held = new Set<Duplex>();
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ webSocketDebuggerUrl: 'ws://127.0.0.1:9/devtools/browser/none' }));
  });
  server.on('upgrade', (req, socket, head) => {
    state.upgrades.push(req);
    if (fixture.hold) {
      // Waiting for room: the client hears nothing until it gives up.
      // The upgraded socket stays half open: the client's end is its going away.
      socket.once('end', () => {
        state.closedHeld++;
        socket.destroy();
      });
      socket.on('error', () => {});
      // Read on, so that the client's going away is seen.
      socket.resume();
      held.add(socket);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => ws.send(BROWSER_ID));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fixture = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upgrades: state.upgrades,
    closed: () => state.closedHeld,
    hold: false,
    stop: async () => {
      for (const c of wss.clients) c.terminate();
      for (const socket of held) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fixture;
}

describe("the portal's /start carries the options it was given", () => {
  let fixture: Awaited<ReturnType<typeof startFixture>>;
  before(async () => (fixture = await startFixture()));
  after(() => fixture.stop());

  it('sends the proxy in X-Browser-Proxy and the lifetime and queue in the query, and only to /start', async () => {
    const held = await holdBrowser(fixture.url, 'psk_test', { lifetimeSeconds: 300, queueSeconds: 120, proxyUrl: PROXY });
    const req = fixture.upgrades.at(-1)!;
    const query = new URL(req.url!, 'ws://x').searchParams;
    assert.equal(new URL(req.url!, 'ws://x').pathname, '/start');
    assert.equal(query.get('timeout'), '300');
    assert.equal(query.get('queue'), '120');
    assert.equal(req.headers['x-browser-proxy'], PROXY);
    assert.equal(req.headers.authorization, 'Bearer psk_test');
    assert.equal(held.id, BROWSER_ID);
    assert.ok(!JSON.stringify(held.headers).includes('s3cret'), 'the later calls do not carry the proxy');
    held.release();
  });

  it('sends neither option nor the header when none is asked', async () => {
    const held = await holdBrowser(fixture.url, 'psk_test');
    const req = fixture.upgrades.at(-1)!;
    assert.equal(req.url, '/start');
    assert.equal(req.headers['x-browser-proxy'], undefined);
    held.release();
  });

  it('passes the options of a team browser through TeamBrowsers.start', async () => {
    const instances = new TeamBrowsers({ serviceUrl: fixture.url, idleMs: 60_000, maxPerUser: 2, maxPerTeam: 2, log: silent });
    const before = fixture.upgrades.length;
    // The fixture has no DevTools behind it, so the start fails after the handshake: what it sent is what counts here.
    await assert.rejects(
      instances.start({
        teamId: 't',
        user: { userId: 'u', name: 'U' },
        keyId: 'k',
        keyName: 'k',
        apiKey: 'psk_test',
        options: { lifetimeSeconds: 60, queueSeconds: 300, proxyUrl: 'socks5://proxy.example.com:1080' },
      }),
    );
    assert.equal(fixture.upgrades.length, before + 1);
    const req = fixture.upgrades.at(-1)!;
    assert.equal(req.url, '/start?timeout=60&queue=300');
    assert.equal(req.headers['x-browser-proxy'], 'socks5://proxy.example.com:1080');
  });

  it('closes a pending /start when the start is cancelled', async () => {
    fixture.hold = true;
    try {
      const abort = new AbortController();
      const before = fixture.upgrades.length;
      const pending = holdBrowser(fixture.url, 'psk_test', { queueSeconds: 300, signal: abort.signal });
      await eventually(
        () => fixture.upgrades.length,
        (n) => n > before,
      );
      abort.abort();
      await assert.rejects(pending, (err) => err instanceof StartCancelled && asDomainError(err)?.status === 409);
      assert.equal(await eventually(fixture.closed, (n) => n >= 1), 1, 'the fixture saw the connection close');
    } finally {
      fixture.hold = false;
    }
  });
});

type Health = { browsers: { live: number; queued: number } };

describe('team browsers against the real service: a lifetime of their own, a wait for room', () => {
  let service: ServiceProcess;
  let token: string;
  const health = async () => (await (await fetch(`${service.url}/healthz`)).json()) as Health;

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_CAPACITY: '1' });
    token = service.createKey({ maxInstances: 10 }).token;
  });
  after(() => service.stop());

  it('ends a browser started with a short lifetime by itself, and the history records why', async () => {
    const data = memoryData();
    const ann = await account(data, 'ann');
    const team = await createTeam(data, ann, { name: 'T' });
    const instances = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600_000, maxPerUser: 2, maxPerTeam: 2, log: silent });
    recordBrowserEvents(instances, data, silent);
    const ended: EndedTeamBrowser[] = [];
    instances.on('ended', (e) => ended.push(e));
    try {
      const short = await instances.start({
        teamId: team.id,
        user: { userId: ann.userId, name: 'Ann' },
        keyId: 'k',
        keyName: 'default',
        apiKey: token,
        name: 'short-lived',
        options: { lifetimeSeconds: 2, queueSeconds: 30 },
      });
      const record = await eventually(() => ended.find((e) => e.id === short.id), Boolean, 15_000);
      assert.equal(record?.reason, 'lifetime');
      const history = await eventually(
        () => data.instanceHistory(team.id, 0, 10),
        (rows) => rows.length === 1,
      );
      assert.deepEqual(
        history.map((h) => [h.id, h.name, h.reason, h.browserId]),
        [[short.id, 'short-lived', 'lifetime', short.live.held.id]],
      );
      assert.match(history[0]!.browserId ?? '', /^br_/, "the record names the service's browser");
      assert.equal(
        await eventually(
          async () => (await health()).browsers.live,
          (n) => n === 0,
        ),
        0,
      );
    } finally {
      await instances.shutdown();
      await data.close();
    }
  });

  it('shows a start waiting for room while the service is full, gives it the next room, and a cancelled one leaves nothing', async () => {
    const instances = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600_000, maxPerUser: 5, maxPerTeam: 5, log: silent });
    let changes = 0;
    instances.on('change', () => changes++);
    const start = (name: string) =>
      instances.start({
        teamId: 'team_q',
        user: { userId: 'u', name: 'Ada' },
        keyId: 'k',
        keyName: 'default',
        apiKey: token,
        name,
        options: { queueSeconds: 60 },
      });
    try {
      const first = await start('first');
      assert.equal(instances.waitingForTeam('team_q').length, 0, 'a start with room does not wait');
      const second = start('second');
      const [waiting] = await eventually(
        () => instances.waitingForTeam('team_q'),
        (w) => w.length === 1,
        10_000,
      );
      assert.equal(waiting?.name, 'second');
      assert.equal((await health()).browsers.queued, 1, 'it waits in the service’s queue');
      assert.ok(changes > 0, 'dashboards hear of it');
      instances.stop(first.id);
      const got = await second;
      assert.equal(got.id, waiting?.id, 'the browser keeps the id it waited under');
      assert.deepEqual(instances.waitingForTeam('team_q'), []);

      const third = start('third');
      const [stuck] = await eventually(
        () => instances.waitingForTeam('team_q'),
        (w) => w.length === 1,
        10_000,
      );
      assert.equal((await health()).browsers.queued, 1);
      assert.ok(instances.cancelWaiting(stuck!.id));
      await assert.rejects(third, (err) => asDomainError(err)?.status === 409);
      assert.deepEqual(instances.waitingForTeam('team_q'), []);
      assert.equal(
        await eventually(
          async () => (await health()).browsers.queued,
          (n) => n === 0,
        ),
        0,
        'it left the queue',
      );
      instances.stop(got.id);
      const after = await eventually(health, (h) => h.browsers.live === 0, 10_000);
      assert.deepEqual(after.browsers.live, 0, 'nothing was started for the cancelled one');
      assert.equal(instances.listForTeam('team_q').length, 0);
    } finally {
      await instances.shutdown();
    }
  });

  it("shows a waiting start to every member, lets only its starter and admins cancel it, and refuses another team's proxy", async () => {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const bob = await account(v.data, 'Bob');
    const carol = await account(v.data, 'Carol');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    const { token } = await createInvite(v.data, ann, team.id, { role: 'member' }, 60_000);
    await acceptInvite(v.data, bob, token);
    const carolTeam = await createTeam(v.data, carol, { name: 'Other' });
    await addKey(v, ann, team.id, { mode: 'add', name: 'crew key', key: service.createKey({ maxInstances: 10 }).token });
    await addKey(v, carol, carolTeam.id, { mode: 'add', name: 'carol key', key: service.createKey({ maxInstances: 10 }).token });
    const office = await addProxy(v, ann, team.id, { name: 'Office', url: 'http://alice:s3cret@proxy.example.com:8080' });
    const live = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600_000, maxPerUser: 3, maxPerTeam: 5, log: silent });
    const p = browserPortal(service.url, v, live);
    const person = (id: string, name: string): PublicUser => ({ id, name, email: `${name.toLowerCase()}@example.test` });
    try {
      const bobs = await startBrowser(p, bob, person(bob.userId, 'Bob'), team.id, { name: "Bob's" });
      // Another team's proxy is not found, before anything is started.
      await assert.rejects(
        startBrowser(p, carol, person(carol.userId, 'Carol'), carolTeam.id, { proxyId: office.id }),
        (err) => asDomainError(err)?.status === 404,
      );
      await assert.rejects(
        startBrowser(p, ann, person(ann.userId, 'Ann'), team.id, { lifetimeSeconds: -5 }),
        (err) => asDomainError(err)?.issues?.[0]?.field === 'lifetimeSeconds',
      );
      const { browsers } = await health();
      assert.deepEqual([browsers.live, browsers.queued], [1, 0], 'only the first was started, nothing waits');

      const anns = startBrowser(p, ann, person(ann.userId, 'Ann'), team.id, { name: "Ann's", lifetimeSeconds: 600 });
      const seenByBob = await eventually(
        () => dashboardSnapshot(p, bob, team.id),
        (s) => s.waiting.length === 1,
        10_000,
      );
      assert.deepEqual(
        seenByBob.waiting.map((w) => [w.name, w.startedBy.name, w.canCancel]),
        [["Ann's", 'Ann', false]],
        'a member sees it waiting, and may not cancel it',
      );
      const waitingId = seenByBob.waiting[0]!.id;
      assert.equal((await dashboardSnapshot(p, ann, team.id)).waiting[0]?.canCancel, true);
      await assert.rejects(stopBrowser(p, bob, person(bob.userId, 'Bob'), team.id, waitingId), (err) => asDomainError(err)?.status === 403);
      await assert.rejects(
        stopBrowser(p, carol, person(carol.userId, 'Carol'), carolTeam.id, waitingId),
        (err) => asDomainError(err)?.status === 404,
        "another team's member does not find it",
      );
      await stopBrowser(p, ann, person(ann.userId, 'Ann'), team.id, waitingId);
      await assert.rejects(anns, (err) => asDomainError(err)?.status === 409);
      assert.deepEqual((await dashboardSnapshot(p, bob, team.id)).waiting, []);
      assert.equal(
        await eventually(
          async () => (await health()).browsers.queued,
          (n) => n === 0,
        ),
        0,
      );
      await stopBrowser(p, bob, person(bob.userId, 'Bob'), team.id, bobs.id);
      assert.equal(
        await eventually(
          async () => (await health()).browsers.live,
          (n) => n === 0,
          10_000,
        ),
        0,
        'nothing started for the cancelled one',
      );
    } finally {
      await live.shutdown();
      await v.data.close();
    }
  });
});

describe("a browser started from the portal through one of the team's proxies, with a real service, Chromium and proxy", () => {
  /** The fixture proxy's password: it goes into the proxy's stored address and must come back in no answer of the portal's. */
  const SECRET = 'planted-Portal-proxy-secret-81be';
  const USER = 'team-proxy-user-4d07';
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let otherPages: Awaited<ReturnType<typeof startPageServer>>;
  let proxy: FixtureProxy;
  let hits = 0;

  before(async () => {
    // 127.0.0.1 stands in for the internet (the fixture proxy and the site), as in browser-upstream-proxy.test.ts.
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    pages.server.prependListener('request', () => hits++);
    otherPages = await startPageServer();
    proxy = await startConnectProxy({ username: USER, password: SECRET });
  });
  after(async () => {
    await proxy?.close();
    await otherPages?.close();
    await pages?.close();
    await service?.stop();
  });

  it('loads a page through the chosen team proxy with its login, explains a refused login, and never answers the password', async () => {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const team = await createTeam(v.data, ann, { name: 'Crew' });
    await addKey(v, ann, team.id, { mode: 'add', name: 'crew key', key: service.createKey({ maxInstances: 10 }).token });
    const office = await addProxy(v, ann, team.id, { name: 'Office', url: `http://${USER}:${SECRET}@127.0.0.1:${proxy.port}` });
    const wrong = await addProxy(v, ann, team.id, { name: 'Wrong', url: `http://${USER}:wrong-password@127.0.0.1:${proxy.port}` });
    assert.equal(office.hasCredentials, true);
    const live = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600_000, maxPerUser: 3, maxPerTeam: 5, log: silent });
    const p = browserPortal(service.url, v, live);
    const user: PublicUser = { id: ann.userId, name: 'Ann', email: 'ann@example.test' };
    /** Load the fixture site in the portal's browser over a second CDP connection, through the service's public interface. */
    const visit = async (instanceId: string, url = pages.url) => {
      const held = live.get(instanceId)!.live.held;
      const browser = await chromium.connectOverCDP(await debuggerUrl(service.url, held.headers), { headers: held.headers });
      try {
        const page = await browser.contexts()[0]!.newPage();
        const res = await page.goto(url, { timeout: 20_000 });
        return { status: res?.status(), text: (await page.textContent('body')) ?? '' };
      } finally {
        // Only the CDP connection is closed: the browser stays the portal's.
        await browser.close().catch(() => {});
      }
    };
    try {
      const through = await startBrowser(p, ann, user, team.id, { name: 'via-office', proxyId: office.id });
      let before = { tunnels: proxy.tunnels.length, carried: proxy.carried, refused: proxy.refusedLogins, hits };
      const r = await visit(through.id);
      assert.equal(r.status, 200, JSON.stringify(r));
      assert.ok(
        proxy.tunnels.slice(before.tunnels).includes(new URL(pages.url).host),
        'the page’s connection went through the team’s proxy',
      );
      assert.ok(proxy.carried > before.carried, 'the request itself went through the proxy');
      assert.equal(proxy.refusedLogins, before.refused, 'the proxy accepted the login it was given');
      assert.ok(hits > before.hits, 'the site answered');

      const refused = await startBrowser(p, ann, user, team.id, { name: 'via-wrong', proxyId: wrong.id });
      before = { tunnels: proxy.tunnels.length, carried: proxy.carried, refused: proxy.refusedLogins, hits };
      // It visits a site of its own: the first browser may still open a tunnel (its favicon) to the first.
      const bad = await visit(refused.id, otherPages.url);
      assert.equal(bad.status, 502);
      assert.match(bad.text, /Your proxy refused the login/);
      assert.ok(proxy.refusedLogins > before.refused, 'the fixture saw the wrong login');
      assert.ok(!proxy.tunnels.includes(new URL(otherPages.url).host), 'no tunnel was opened for it');

      // What the portal answers for its browsers: the search first proves it sees the rows (their names).
      const answers = JSON.stringify([
        through,
        refused,
        await listBrowsers(p, ann, team.id),
        await dashboardSnapshot(p, ann, team.id),
        await listProxies(v, ann, team.id),
      ]);
      assert.ok(answers.includes('via-office') && answers.includes('via-wrong') && answers.includes('Office'), 'the answers hold the rows');
      for (const needle of [SECRET, encodeURIComponent(SECRET), 'wrong-password', Buffer.from(`${USER}:${SECRET}`).toString('base64')])
        assert.ok(!answers.includes(needle), `leaked: ${needle}`);
    } finally {
      await live.shutdown();
      await v.data.close();
    }
  });
});
