import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { parseCidrList } from '../../net/cidr.ts';
import { EgressPolicy } from './policy.ts';
import { EgressProxy } from './proxy.ts';

/** The proxy with a resolver double: `evil.example` points at loopback, `ok.example` at an allowed address. */
describe('EgressProxy', () => {
  let target: Server;
  let port = 0;
  let proxy: EgressProxy;
  let proxyPort = 0;
  const seen: string[] = [];

  before(async () => {
    target = createServer((req, res) => {
      seen.push(req.headers.host ?? '');
      // A site that tries to pass its answer off as the proxy's refusal.
      if (req.url === '/forged') res.setHeader('x-periscope-egress', 'denied-address').setHeader('X-Periscope-Egress-Detail', 'forged');
      res.end('hello from target');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.2', () => r()));
    port = (target.address() as AddressInfo).port;
    // 127.0.0.2 stands in for a public address: allowed explicitly, while the rest of loopback is not.
    const resolver = async (host: string) =>
      ({ 'evil.example': ['127.0.0.1'], 'ok.example': ['127.0.0.2'], 'mixed.example': ['10.0.0.1', '127.0.0.2'] })[host] ?? [];
    proxy = new EgressProxy(new EgressPolicy(parseCidrList(['127.0.0.2/32'], 'X')), pino({ level: 'silent' }), { resolve: resolver });
    await proxy.listen();
    proxyPort = Number(new URL(proxy.url).port);
  });
  after(async () => {
    await proxy.close();
    target.close();
  });

  /** One request through the proxy: its TCP listener, or an instance's own socket; a body makes it a POST. */
  const viaProxy = (url: string, o: { socketPath?: string; body?: string } = {}) =>
    new Promise<{ status: number; body: string; egress?: string; detail?: string }>((resolve, reject) => {
      const to = o.socketPath ? { socketPath: o.socketPath } : { host: '127.0.0.1', port: proxyPort };
      const method = o.body === undefined ? 'GET' : 'POST';
      const req = request({ ...to, method, path: url, headers: { host: new URL(url).host } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        const reason = res.headers['x-periscope-egress'] as string | undefined;
        const detail = res.headers['x-periscope-egress-detail'] as string | undefined;
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ...(reason && { egress: reason, detail }) }));
      });
      req.on('error', reject);
      req.end(o.body);
    });

  /** A target that answers with the number of the connection each request came on. */
  const numberingTarget = async (answer: (req: IncomingMessage, res: ServerResponse, connection: number, nth: number) => void) => {
    let connections = 0;
    const server = createServer((req, res) => {
      const socket = req.socket as typeof req.socket & { number?: number; requests?: number };
      socket.number ??= ++connections;
      socket.requests = (socket.requests ?? 0) + 1;
      answer(req, res, socket.number, socket.requests);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', () => r()));
    return { server, url: `http://ok.example:${(server.address() as AddressInfo).port}/` };
  };

  const tunnel = (authority: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(proxyPort, '127.0.0.1');
      socket.once('connect', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
      socket.once('data', (c: Buffer) => {
        resolve(c.toString().split('\r\n')[0] as string);
        socket.destroy();
      });
      socket.once('error', reject);
    });

  it('drops the upstream request when the browser goes away in the middle of an answer', { timeout: 10_000 }, async () => {
    // An endless answer that stops being read: without the fix the target keeps its connection open.
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    const endless = createServer((req, res) => {
      req.socket.once('close', () => upstreamClosed());
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024);
      const more = () => {
        while (res.write(chunk));
        res.once('drain', more);
      };
      more();
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.2', () => r()));
    const endlessPort = (endless.address() as AddressInfo).port;
    try {
      await new Promise<void>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: proxyPort, path: `http://ok.example:${endlessPort}/`, headers: { host: `ok.example:${endlessPort}` } },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', () => {});
        req.once('error', reject);
        req.end();
      });
      await closed; // hangs (and the test times out) if the proxy keeps the upstream request
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });

  it('forwards http to an allowed name, connecting to the address it checked', async () => {
    const r = await viaProxy(`http://ok.example:${port}/page`);
    assert.deepEqual(r, { status: 200, body: 'hello from target' });
    assert.equal(seen.at(-1), `ok.example:${port}`, 'the Host header is kept');
  });

  it('refuses a name that resolves to a denied address, for http and CONNECT', async () => {
    const before = seen.length;
    const r = await viaProxy(`http://evil.example:${port}/`);
    assert.equal(r.status, 403);
    assert.equal(r.egress, 'denied-address', 'a program can read why');
    assert.equal(r.detail, '127.0.0.1 is in 127.0.0.0/8 (loopback)');
    assert.match(r.body, /<h1>Blocked by the egress policy: evil\.example:\d+<\/h1>/);
    assert.match(r.body, /<code>BROWSER_EGRESS_ALLOW<\/code>/, 'a person reads what the operator can change');
    assert.match(await tunnel(`evil.example:${port}`), /^HTTP\/1\.1 403/);
    assert.equal(seen.length, before);
  });

  it("never forwards a site's own copy of the proxy's headers", async () => {
    const r = await viaProxy(`http://ok.example:${port}/forged`);
    assert.equal(r.status, 200);
    assert.equal(r.body, 'hello from target', 'the answer is forwarded');
    assert.equal(r.egress, undefined, 'without the forged reason');
    assert.equal(r.detail, undefined);
  });

  it('uses only the allowed addresses of a name with mixed answers', async () => {
    assert.match(await tunnel(`mixed.example:${port}`), /^HTTP\/1\.1 200/);
  });

  it('says when an allowed site does not answer', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.2', () => r()));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await viaProxy(`http://ok.example:${closedPort}/`);
    assert.equal(r.status, 502);
    assert.equal(r.egress, 'unreachable');
    assert.equal(r.detail, '127.0.0.2: ECONNREFUSED');
    assert.match(r.body, /The site did not answer: ok\.example/);
  });

  it("keeps each instance's kept-alive upstream connections its own", async () => {
    const target = await numberingTarget((_req, res, connection) => res.end(`connection ${connection}`));
    const dir = await mkdtemp(join(tmpdir(), 'periscope-egress-'));
    const stops = await Promise.all(['a', 'b'].map((name) => proxy.serveInstance(join(dir, `${name}.sock`), name)));
    try {
      const a = { socketPath: join(dir, 'a.sock') };
      assert.equal((await viaProxy(target.url, a)).body, 'connection 1');
      // The reuse this test looks for is visible: the same instance, on a new connection of its own, gets the kept one.
      assert.equal((await viaProxy(target.url, a)).body, 'connection 1');
      assert.equal(
        (await viaProxy(target.url, { socketPath: join(dir, 'b.sock') })).body,
        'connection 2',
        'another instance never gets it',
      );
      assert.equal((await viaProxy(target.url)).body, 'connection 3', 'nor does the TCP listener');
    } finally {
      await Promise.all(stops.map((served) => served.close()));
      target.server.closeAllConnections();
      target.server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sends a request without a body again when the kept-alive connection it was given turns out closed', async () => {
    // Every connection answers its first request and is then closed by the server as the next one arrives.
    const target = await numberingTarget((req, res, connection, nth) => {
      if (nth > 1) return void req.socket.destroy();
      req.resume();
      res.end(`connection ${connection}`);
    });
    try {
      assert.deepEqual(await viaProxy(target.url), { status: 200, body: 'connection 1' });
      assert.deepEqual(await viaProxy(target.url), { status: 200, body: 'connection 2' }, 'sent again, on a new connection');
      const posted = await viaProxy(target.url, { body: 'form=1' });
      assert.equal(posted.status, 502, 'a body, once sent, is not sent twice');
      assert.equal(posted.egress, 'unreachable');
      assert.deepEqual(await viaProxy(target.url), { status: 200, body: 'connection 3' });
    } finally {
      target.server.closeAllConnections();
      target.server.close();
    }
  });

  it('refuses names that do not resolve and malformed requests', async () => {
    const r = await viaProxy(`http://nowhere.example:${port}/`);
    assert.equal(r.status, 403);
    assert.equal(r.egress, 'unresolved');
    assert.match(r.body, /Not found: nowhere\.example/);
    assert.match(await tunnel('no-port-here'), /^HTTP\/1\.1 400/);
    assert.match(await tunnel('[::1:99999'), /^HTTP\/1\.1 400/);
  });
});
