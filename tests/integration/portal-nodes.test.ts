import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode } from 'next-auth/jwt';
import WebSocket from 'ws';
import { addKey } from '#portal/keys/vault.ts';
import { loadPortalConfig } from '#portal/config.ts';
import { SecretBox } from '#portal/crypto/secretbox.ts';
import { openPortalData } from '#portal/data/open.ts';
import type { PortalData } from '#portal/data/portal-data.ts';
import { NoIssuer } from '#portal/keys/issuer.ts';
import { signNodeRequest } from '#shared/node-signature.ts';
import { LIVE_CLOSE, type ServerMessage } from '#portal/protocol/live.ts';
import { decodeThumbnail, type DashboardSnapshot } from '#portal/protocol/dashboard.ts';
import { nodeLivePath } from '#portal/protocol/node.ts';
import type { BrowserRow } from '#portal/protocol/dashboard.ts';
import { acceptInvite, createInvite } from '#portal/teams/invites.ts';
import { createTeam } from '#portal/teams/teams.ts';
import { KeyUseLog } from '#portal/teams/audit.ts';
import { eventually as probe } from '../helpers/eventually.ts';
import { startPageServer } from '../helpers/pages.ts';
import { account } from '../helpers/portal-doubles.ts';
import type { NodeAnswer, NodeCall } from '../helpers/portal-node.ts';
import { freePort } from '../helpers/ports.ts';
import { redisSkip, startRedis, type TestRedis } from '../helpers/redis.ts';
import { ROOT, startService, type ServiceProcess } from '../helpers/service.ts';

const CLUSTER_SECRET = 'cluster-secret-for-the-portal-nodes-test-0123';
const AUTH_SECRET = 'auth-secret-for-the-portal-nodes-test-0123456789';
const KEY_SECRET = 'key-secret-for-the-portal-nodes-test-0123456789';

/** Probe until `ok` holds, and fail the test when it never does. */
async function eventually<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const v = await probe(read, ok, timeoutMs);
  assert.ok(ok(v), `still not so after ${timeoutMs} ms: ${JSON.stringify(v)?.slice(0, 2000)}`);
  return v;
}

type Ask = { [K in NodeCall['op']]: Omit<Extract<NodeCall, { op: K }>, 'id'> }[NodeCall['op']];

/** A portal node in its own process (tests/helpers/portal-node.ts), asked over IPC. */
type PortalNode = {
  id: string;
  url: string;
  child: ChildProcess;
  call<T>(call: Ask): Promise<T>;
};

/**
 * Several portal nodes (decision 0095): two real portal processes on one SQLite file and one real
 * Redis, in front of the real service with real Chromium. A viewer on node 2 watches and drives a
 * browser node 1 holds; each node's dashboard lists both nodes' browsers and hears the other's
 * changes; forged node-to-node requests are refused; a killed node's browsers leave the dashboard
 * of the other, ended with a reason.
 */
describe('portal nodes', { skip: redisSkip() }, () => {
  let redis: TestRedis;
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let dataDir: string;
  let data: PortalData;
  const nodes: PortalNode[] = [];
  let ann: { userId: string };
  let bob: { userId: string };
  let teamId: string;
  let keyId: string;
  const cookies = new Map<string, string>();

  async function startNode(id: string): Promise<PortalNode> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = fork(join(ROOT, 'tests/helpers/portal-node.ts'), [], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        SERVICE_URL: service.url,
        NEXTAUTH_URL: url,
        NEXTAUTH_SECRET: AUTH_SECRET,
        KEY_ENCRYPTION_SECRET: KEY_SECRET,
        REDIS_URL: redis.url,
        CLUSTER_SECRET,
        PORTAL_NODE_ID: id,
        LOG_LEVEL: 'error',
      },
    });
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`portal node ${id} exited with ${code}`)));
      child.on('message', (m: { ready?: number }) => m.ready && resolve());
    });
    let n = 0;
    const waiting = new Map<number, (a: NodeAnswer) => void>();
    child.on('message', (m: NodeAnswer) => waiting.get(m.id)?.(m));
    const node: PortalNode = {
      id,
      url,
      child,
      call: <T>(call: Ask) =>
        new Promise<T>((resolve, reject) => {
          const id = ++n;
          waiting.set(id, (a) => {
            waiting.delete(id);
            if (a.ok) resolve(a.value as T);
            else reject(new Error(a.error));
          });
          child.send({ ...call, id });
        }),
    };
    nodes.push(node);
    return node;
  }

  /** A socket of `node` opened as a signed-in person's page of that node would open it (no one: a shared link's page). */
  function socket(node: PortalNode, path: string, userId: string | null) {
    const headers: Record<string, string> = { origin: node.url };
    if (userId) headers.cookie = cookies.get(userId)!;
    const ws = new WebSocket(`${node.url.replace('http', 'ws')}${path}`, { headers });
    const messages: (ServerMessage | ({ type: 'snapshot' } & DashboardSnapshot))[] = [];
    let frames = 0;
    const thumbnails: string[] = [];
    ws.on('message', (d, binary) => {
      if (!binary) return messages.push(JSON.parse(d.toString()));
      frames++;
      if (path.startsWith('/events/')) thumbnails.push(decodeThumbnail(new Uint8Array(d as Buffer)).meta.instanceId);
    });
    const opened = new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => {});
    return { ws, messages, opened, closed, frames: () => frames, thumbnails };
  }

  const lastSnapshot = (messages: unknown[]) =>
    (messages as { type: string }[]).filter((m) => m.type === 'snapshot').at(-1) as (DashboardSnapshot & { type: 'snapshot' }) | undefined;
  const ids = (s: DashboardSnapshot | undefined) => (s?.instances ?? []).map((i) => i.id).sort();

  before(async () => {
    redis = await startRedis();
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    dataDir = mkdtempSync(join(tmpdir(), 'periscope-portal-nodes-'));
    // The data every node shares: one SQLite file in DATA_DIR (WAL), set up here first.
    data = await openPortalData(loadPortalConfig({ DATA_DIR: dataDir }));
    ann = await account(data, 'Ann');
    bob = await account(data, 'Bob');
    teamId = (await createTeam(data, ann, { name: 'Crew' })).id;
    await acceptInvite(data, bob, (await createInvite(data, ann, teamId, { role: 'member' }, 60_000)).token);
    const vault = { data, box: new SecretBox(KEY_SECRET), issuer: new NoIssuer(), keyUse: new KeyUseLog(data) };
    keyId = (await addKey(vault, ann, teamId, { mode: 'add', name: 'ci', key: service.createKey({ maxInstances: 10 }).token })).key.id;
    for (const who of [ann, bob]) {
      const user = (await data.userById(who.userId))!;
      cookies.set(
        who.userId,
        `next-auth.session-token=${await encode({ token: { uid: user.id, sv: user.sessionVersion }, secret: AUTH_SECRET })}`,
      );
    }
    await startNode('portal-1');
    await startNode('portal-2');
  });
  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await pages?.close();
    await service?.stop();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  let held: BrowserRow;

  it('lists a browser started on node 1 on both nodes, and node 2’s dashboard hears of it and of its rename', async () => {
    const [one, two] = nodes as [PortalNode, PortalNode];
    const dashboard = socket(two, `/events/${teamId}`, bob.userId);
    await dashboard.opened;
    await eventually(
      () => lastSnapshot(dashboard.messages),
      (s) => s !== undefined && s.instances.length === 0,
    );
    held = await one.call<BrowserRow>({ op: 'start', userId: ann.userId, teamId, keyId });
    // Pushed to node 2 over Redis (no refresh period is this short).
    await eventually(
      () => ids(lastSnapshot(dashboard.messages)),
      (list) => list.includes(held.id),
      3000,
    );
    const other = await two.call<BrowserRow>({ op: 'start', userId: bob.userId, teamId, keyId });
    for (const node of [one, two]) {
      const s = await node.call<DashboardSnapshot>({ op: 'snapshot', userId: ann.userId, teamId });
      assert.deepEqual(ids(s), [held.id, other.id].sort(), `node ${node.id} lists both nodes' browsers`);
      assert.equal(s.capacity.team.used, 2);
    }
    // Bob (a member) may not rename Ann's browser from node 2; Ann may, and node 1 does it.
    await assert.rejects(two.call({ op: 'rename', userId: bob.userId, teamId, instanceId: held.id, name: 'Nope' }), /only the person/);
    await two.call({ op: 'rename', userId: ann.userId, teamId, instanceId: held.id, name: 'Renamed on node 2' });
    await eventually(
      () => lastSnapshot(dashboard.messages)?.instances.find((i) => i.id === held.id)?.name,
      (name) => name === 'Renamed on node 2',
      3000,
    );
    // Pictures too: node 2 asks node 1 for its browser's.
    await eventually(
      () => dashboard.thumbnails,
      (t) => t.includes(held.id),
      10_000,
    );
    // Stopping node 2's browser from node 1: node 2 ends it, and both dashboards' history says who.
    await one.call({ op: 'stop', userId: bob.userId, teamId, instanceId: other.id });
    await eventually(
      () => lastSnapshot(dashboard.messages),
      (s) => !ids(s).includes(other.id) && s!.history.some((h) => h.id === other.id && h.message === 'stopped by Bob'),
      5000,
    );
    dashboard.ws.close();
  });

  it('relays a viewer on node 2 to node 1, which holds the browser: frames out, clicks and typing in', async () => {
    const two = nodes[1]!;
    const viewer = socket(two, `/live/${held.id}`, bob.userId);
    await viewer.opened;
    viewer.ws.send(JSON.stringify({ type: 'hello', v: 1 }));
    await eventually(() => viewer.messages.find((m) => m.type === 'welcome'), Boolean);
    viewer.ws.send(JSON.stringify({ type: 'navigate', url: `${pages.url}live` }));
    const title = () =>
      (viewer.messages.filter((m) => m.type === 'state').at(-1) as Extract<ServerMessage, { type: 'state' }> | undefined)?.tabs.find(
        (t) => t.active,
      )?.title;
    await eventually(title, (t) => t === 'Live test page', 10_000);
    await eventually(viewer.frames, (n) => n > 0, 10_000);
    const click = (x: number, y: number) => {
      for (const action of ['down', 'up'])
        viewer.ws.send(JSON.stringify({ type: 'mouse', action, x, y, button: 'left', buttons: action === 'down' ? 1 : 0, clickCount: 1 }));
    };
    click(200, 125);
    await eventually(title, (t) => t === 'clicked 1', 10_000);
    click(250, 215);
    viewer.ws.send(JSON.stringify({ type: 'text', text: 'typed on node 2' }));
    await eventually(title, (t) => t === 'field: typed on node 2', 10_000);
    // The holder's own view of its page agrees.
    const seen = await nodes[0]!.call<DashboardSnapshot>({ op: 'snapshot', userId: ann.userId, teamId });
    assert.equal(seen.instances.find((i) => i.id === held.id)?.title, 'field: typed on node 2');
    // Who watches, as node 1 sees it: Bob, in control, through node 2.
    assert.deepEqual(
      seen.instances.find((i) => i.id === held.id)?.viewers.map((v) => [v.name, v.control, v.userId]),
      [['Bob', true, bob.userId]],
    );
    viewer.ws.close();
    assert.equal(await viewer.closed, 1005);
  });

  it('relays a shared link’s guest on node 2 to node 1: it watches, and a watch link gives no control there either', async () => {
    const { token } = await nodes[0]!.call<{ token: string }>({
      op: 'link',
      userId: ann.userId,
      teamId,
      instanceId: held.id,
      mode: 'watch',
    });
    const guest = socket(nodes[1]!, `/embed/${token}/socket`, null);
    await guest.opened;
    guest.ws.send(JSON.stringify({ type: 'hello', v: 1 }));
    await eventually(guest.frames, (n) => n > 0, 10_000);
    const state = (await eventually(() => guest.messages.find((m) => m.type === 'state'), Boolean)) as Extract<
      ServerMessage,
      { type: 'state' }
    >;
    assert.ok(
      state.viewers.every((v) => v.userId === null),
      'a guest sees the others by name only',
    );
    guest.ws.send(JSON.stringify({ type: 'mouse', action: 'down', x: 200, y: 125, button: 'left', buttons: 1, clickCount: 1 }));
    await eventually(
      () => guest.messages.find((m) => m.type === 'error'),
      (m) => m !== undefined && m.type === 'error' && m.code === 'not-in-control',
    );
    guest.ws.close();
  });

  it('refuses node-to-node requests that are not signed, signed with another secret, too old, or replayed', async () => {
    const one = nodes[0]!;
    const path = nodeLivePath(held.id, { name: 'Mallory', userId: ann.userId, watchOnly: false });
    const attempt = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${one.url.replace('http', 'ws')}${path}`, { headers });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('error', () => {});
      });
    const sign = (secret: string, at = Date.now()) => signNodeRequest('portal', secret, 'portal-2', { method: 'GET', path }, at);
    assert.equal(await attempt({}), 401, 'unsigned');
    assert.equal(await attempt({ cookie: cookies.get(ann.userId)!, origin: one.url }), 401, 'a user’s cookie is no node');
    assert.equal(await attempt(sign('another-secret-that-is-long-enough-0123456789')), 401, 'another secret');
    assert.equal(await attempt(sign(CLUSTER_SECRET, Date.now() - 60_000)), 401, 'signed a minute ago');
    const good = sign(CLUSTER_SECRET);
    assert.equal(await attempt(good), 101, 'signed now');
    assert.equal(await attempt(good), 401, 'the same request again');
    // The stop endpoint alike: unsigned, nothing happens.
    const stop = await fetch(`${one.url}/_node/browsers/${held.id}/stop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'stopped', message: 'forged' }),
    });
    assert.equal(stop.status, 401);
    const s = await one.call<DashboardSnapshot>({ op: 'snapshot', userId: ann.userId, teamId });
    assert.ok(ids(s).includes(held.id), 'the browser still runs');
  });

  it('answers signed node requests that do not hold up with clear errors', async () => {
    const one = nodes[0]!;
    const signedPost = async (path: string, body: string, method = 'POST') => {
      const headers = {
        'content-type': 'application/json',
        ...signNodeRequest('portal', CLUSTER_SECRET, 'portal-2', { method, path, body }),
      };
      const res = await fetch(`${one.url}${path}`, { method, headers, ...(method === 'POST' ? { body } : {}) });
      return { status: res.status, body: (await res.json()) as { error: string } };
    };
    const stop = `/_node/browsers/${held.id}/stop`;
    assert.equal((await signedPost(stop, 'not json')).status, 400);
    assert.equal((await signedPost(stop, JSON.stringify({ reason: 'stopped', message: 'x', extra: 1 }))).status, 400);
    assert.equal((await signedPost(`/_node/browsers/${held.id}/rename`, JSON.stringify({ name: '' }))).status, 400);
    assert.equal((await signedPost(stop, '', 'GET')).status, 405);
    const unknown = await signedPost('/_node/browsers/inst_AAAAAAAAAAAAAAAA/stop', JSON.stringify({ reason: 'stopped', message: 'x' }));
    assert.equal(unknown.status, 404);
    // A relayed viewer whose description does not hold up is refused before the handshake.
    for (const viewer of [
      '',
      'not-base64-json',
      Buffer.from(JSON.stringify({ name: 'M', userId: 1, watchOnly: false })).toString('base64url'),
    ]) {
      const path = `/_node/live/${held.id}?viewer=${viewer}`;
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`${one.url.replace('http', 'ws')}${path}`, {
          headers: signNodeRequest('portal', CLUSTER_SECRET, 'portal-2', { method: 'GET', path }),
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => resolve(101));
        ws.once('error', () => {});
      });
      assert.equal(status, 400, viewer);
    }
    const s = await one.call<DashboardSnapshot>({ op: 'snapshot', userId: ann.userId, teamId });
    assert.equal(s.instances.find((i) => i.id === held.id)?.name, 'Renamed on node 2', 'nothing changed');
  });

  it('takes a killed node’s browsers off the other node’s dashboard, ended with a reason, and closes their relayed viewers', async () => {
    const [one, two] = nodes as [PortalNode, PortalNode];
    const survivor = await two.call<BrowserRow>({ op: 'start', userId: bob.userId, teamId, keyId });
    const dashboard = socket(two, `/events/${teamId}`, ann.userId);
    await dashboard.opened;
    const viewer = socket(two, `/live/${held.id}`, ann.userId);
    await viewer.opened;
    viewer.ws.send(JSON.stringify({ type: 'hello', v: 1, takeControl: false }));
    await eventually(() => viewer.messages.find((m) => m.type === 'welcome'), Boolean);
    one.child.kill('SIGKILL');
    assert.equal(await viewer.closed, LIVE_CLOSE.ended.code, 'the relayed view ends with the browser');
    const gone = await eventually(
      () => lastSnapshot(dashboard.messages),
      (s) => s !== undefined && !ids(s).includes(held.id) && s.history.some((h) => h.id === held.id),
      15_000,
    );
    assert.deepEqual(ids(gone), [survivor.id], 'node 2’s own browser is untouched');
    const ended = gone!.history.find((h) => h.id === held.id)!;
    assert.equal(ended.reason, 'portal-node-lost');
    assert.match(ended.message, /portal node/);
    assert.match(ended.browserId ?? '', /^br_/, "the node that recorded it kept the service's id of it (decision 0112)");
    assert.equal(ended.script, false);
    // Its /start socket died with node 1, so the service ended the browser.
    await eventually(
      async () => ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { live: number } }).browsers.live,
      (n) => n === 1,
      15_000,
    );
    dashboard.ws.close();
  });

  it('lets a restarted node take its place: it lists the other node’s browsers and none of its predecessor’s', async () => {
    const again = await startNode('portal-1');
    const s = await again.call<DashboardSnapshot>({ op: 'snapshot', userId: ann.userId, teamId });
    assert.equal(s.instances.length, 1);
    assert.ok(!ids(s).includes(held.id));
  });
});
