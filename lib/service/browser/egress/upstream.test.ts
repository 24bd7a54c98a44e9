import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { parseUpstreamProxy, type UpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import {
  selfSignedCertificate,
  startConnectProxy,
  startSocksProxy,
  type FixtureProxy,
} from '../../../../tests/helpers/upstream-proxies.ts';
import { parseCidrList } from '../../net/cidr.ts';
import { EgressPolicy } from './policy.ts';
import { EgressProxy, type InstanceEgress } from './proxy.ts';
import { openThrough, UpstreamFailed } from './upstream.ts';

const proxyOf = (text: string): UpstreamProxy => {
  const r = parseUpstreamProxy(text);
  if (!r.ok || !r.proxy) throw new Error(`bad test proxy ${text}`);
  return r.proxy;
};

/** A port nothing listens on (a listener opened and closed at once). */
async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Send an HTTP request over an opened tunnel and read the answer's body. */
function getOver(socket: Duplex, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ createConnection: () => socket as never, host, path: '/' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.once('socket', (s) => s.resume());
    req.on('error', reject);
    req.end();
  });
}

describe('openThrough: the client side of HTTP CONNECT and SOCKS5', () => {
  let site: Server;
  let sitePort = 0;
  let connectProxy: FixtureProxy;
  let socksProxy: FixtureProxy;
  const login = { username: 'tenant', password: 'pa:ss@word' };

  before(async () => {
    site = createServer((_req, res) => res.end('hello through the proxy'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    sitePort = (site.address() as AddressInfo).port;
    connectProxy = await startConnectProxy(login);
    socksProxy = await startSocksProxy(login);
  });
  after(async () => {
    await connectProxy.close();
    await socksProxy.close();
    site.closeAllConnections();
    site.close();
  });

  const url = (scheme: string, port: number, user = 'tenant', pass = 'pa%3Ass%40word') =>
    proxyOf(`${scheme}://${user}:${pass}@127.0.0.1:${port}`);

  it('opens a tunnel through an HTTP proxy with Basic authentication', async () => {
    const before = connectProxy.tunnels.length;
    const socket = await openThrough(url('http', connectProxy.port), { host: '127.0.0.1', port: sitePort }, { address: '127.0.0.1' });
    assert.equal(await getOver(socket, '127.0.0.1'), 'hello through the proxy');
    assert.deepEqual(connectProxy.tunnels.slice(before), [`127.0.0.1:${sitePort}`]);
  });

  it('opens a tunnel through a SOCKS5 proxy with a username and password, the name left to the proxy', async () => {
    const before = socksProxy.tunnels.length;
    const socket = await openThrough(url('socks5', socksProxy.port), { host: 'localhost', port: sitePort }, { address: '127.0.0.1' });
    assert.equal(await getOver(socket, 'localhost'), 'hello through the proxy');
    assert.deepEqual(socksProxy.tunnels.slice(before), [`localhost:${sitePort}`]);
  });

  it('says the login failed, for each kind of proxy, without the credentials', async () => {
    for (const [scheme, port] of [
      ['http', connectProxy.port],
      ['socks5', socksProxy.port],
    ] as const) {
      const err = await openThrough(
        url(scheme, port, 'tenant', 'wrong-planted'),
        { host: '127.0.0.1', port: sitePort },
        { address: '127.0.0.1' },
      ).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof UpstreamFailed, `${scheme}: ${String(err)}`);
      assert.equal(err.kind, 'proxy-auth');
      assert.match(err.message, /refused the login/);
      assert.doesNotMatch(`${err.message} ${err.stack}`, /wrong-planted|tenant/);
    }
  });

  it('says the proxy could not be reached', async () => {
    const port = await closedPort();
    const err = await openThrough(url('http', port), { host: '127.0.0.1', port: sitePort }, { address: '127.0.0.1' }).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof UpstreamFailed);
    assert.equal(err.kind, 'proxy-unreachable');
    assert.match(err.message, /ECONNREFUSED/);
  });

  it('says the proxy refused the destination', async () => {
    const port = await closedPort();
    for (const proxy of [url('http', connectProxy.port), url('socks5', socksProxy.port)]) {
      const err = await openThrough(proxy, { host: '127.0.0.1', port }, { address: '127.0.0.1' }).catch((e: unknown) => e);
      assert.ok(err instanceof UpstreamFailed, String(err));
      assert.equal(err.kind, 'proxy-refused');
    }
  });

  it('opens a tunnel through an https proxy whose certificate it trusts', async () => {
    const certificate = selfSignedCertificate();
    const tlsProxy = await startConnectProxy(login, '127.0.0.1', certificate);
    try {
      const socket = await openThrough(
        url('https', tlsProxy.port),
        { host: '127.0.0.1', port: sitePort },
        { address: '127.0.0.1', tls: { ca: certificate.cert } },
      );
      assert.equal(await getOver(socket, '127.0.0.1'), 'hello through the proxy');
      assert.deepEqual(tlsProxy.tunnels, [`127.0.0.1:${sitePort}`]);
      // Without the authority, the same proxy is not trusted.
      const err = await openThrough(url('https', tlsProxy.port), { host: '127.0.0.1', port: sitePort }, { address: '127.0.0.1' }).catch(
        (e: unknown) => e,
      );
      assert.ok(err instanceof UpstreamFailed && err.kind === 'proxy-unreachable', String(err));
      assert.match(err.message, /TLS|SELF_SIGNED|DEPTH_ZERO/);
    } finally {
      await tlsProxy.close();
    }
  });

  it('says a TLS proxy whose certificate is not trusted could not be reached', async () => {
    // A plain HTTP proxy named as https: the TLS handshake fails.
    const err = await openThrough(
      url('https', connectProxy.port),
      { host: '127.0.0.1', port: sitePort },
      { address: '127.0.0.1', timeoutMs: 3000 },
    ).catch((e: unknown) => e);
    assert.ok(err instanceof UpstreamFailed);
    assert.equal(err.kind, 'proxy-unreachable');
  });
});

describe("EgressProxy through an instance's own upstream proxy", () => {
  let site: Server;
  let sitePort = 0;
  let connectProxy: FixtureProxy;
  let socksProxy: FixtureProxy;
  let egress: EgressProxy;
  let served: InstanceEgress;
  const login = { username: 'tenant', password: 'secret' };

  before(async () => {
    site = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    sitePort = (site.address() as AddressInfo).port;
    connectProxy = await startConnectProxy(login);
    socksProxy = await startSocksProxy(login);
    // 127.0.0.1 stands in for the public internet; the rest of loopback stays refused.
    egress = new EgressProxy(new EgressPolicy(parseCidrList(['127.0.0.1/32'], 'X')), pino({ level: 'silent' }), {
      resolve: async (host) => ({ 'private.example': ['10.1.2.3'] })[host] ?? [],
    });
    await egress.listen();
    served = await egress.serveInstance(null, 'test');
  });
  after(async () => {
    await served.close();
    await egress.close();
    await connectProxy.close();
    await socksProxy.close();
    site.closeAllConnections();
    site.close();
  });

  /** A plain-http request to the instance's own listener, as its browser sends it. */
  const viaInstance = (target: string) =>
    new Promise<{ status: number; body: string; egress?: string; detail?: string }>((resolve, reject) => {
      const { port } = new URL(served.url);
      // A connection of its own each time: changing the route cuts the instance's open ones.
      const req = request({ host: '127.0.0.1', port, path: target, agent: false, headers: { host: new URL(target).host } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            egress: res.headers['x-periscope-egress'] as string | undefined,
            detail: res.headers['x-periscope-egress-detail'] as string | undefined,
          }),
        );
      });
      req.on('error', reject);
      req.end();
    });

  it('carries plain http through the tenant’s HTTP proxy and its SOCKS5 proxy', async () => {
    for (const fixture of [connectProxy, socksProxy]) {
      const scheme = fixture === connectProxy ? 'http' : 'socks5';
      served.routeThrough(proxyOf(`${scheme}://tenant:secret@127.0.0.1:${fixture.port}`));
      const before = fixture.tunnels.length;
      const carried = fixture.carried;
      const r = await viaInstance(`http://127.0.0.1:${sitePort}/`);
      assert.equal(r.body, 'hello');
      assert.deepEqual(fixture.tunnels.slice(before), [`127.0.0.1:${sitePort}`], `${scheme}: the tunnel was opened through the fixture`);
      assert.ok(fixture.carried > carried + 20, `${scheme}: the request itself went through it (${fixture.carried - carried} bytes)`);
    }
  });

  it('refuses a proxy at an address the policy does not allow, and says so', async () => {
    for (const at of ['127.0.0.2', '10.0.0.1', 'private.example']) {
      served.routeThrough(proxyOf(`http://tenant:secret@${at}:${connectProxy.port}`));
      const r = await viaInstance(`http://127.0.0.1:${sitePort}/`);
      assert.equal(r.status, 403);
      assert.equal(r.egress, 'proxy-denied');
      assert.match(r.body, /Your proxy is blocked by the egress policy/);
      assert.match(r.detail ?? '', /(loopback|private-use)/);
    }
  });

  it('still refuses a destination the policy does not allow, and does not ask the proxy', async () => {
    served.routeThrough(proxyOf(`http://tenant:secret@127.0.0.1:${connectProxy.port}`));
    const before = connectProxy.tunnels.length;
    const r = await viaInstance('http://10.0.0.7/');
    assert.equal(r.status, 403);
    assert.equal(r.egress, 'denied-address');
    assert.equal(connectProxy.tunnels.length, before);
  });

  it('explains a failed login and an unreachable proxy in the page, and remembers why for the instance', async () => {
    served.routeThrough(proxyOf(`socks5://tenant:wrong@127.0.0.1:${socksProxy.port}`));
    let r = await viaInstance(`http://127.0.0.1:${sitePort}/`);
    assert.equal(r.status, 502);
    assert.equal(r.egress, 'proxy-auth');
    assert.match(r.body, /Your proxy refused the login/);
    assert.match(served.failure('127.0.0.1') ?? '', /refused the login/);
    const port = await closedPort();
    served.routeThrough(proxyOf(`http://tenant:secret@127.0.0.1:${port}`));
    r = await viaInstance(`http://127.0.0.1:${sitePort}/`);
    assert.equal(r.status, 502);
    assert.equal(r.egress, 'proxy-unreachable');
    assert.match(r.detail ?? '', /ECONNREFUSED/);
  });

  it('cuts the connections the browser opened before its route changed, so that none goes around the proxy', async () => {
    served.routeThrough(null);
    const { port } = new URL(served.url);
    const socket = await new Promise<Duplex>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'CONNECT', path: `127.0.0.1:${sitePort}` });
      req.on('connect', (res, s) => (res.statusCode === 200 ? resolve(s) : reject(new Error(`CONNECT ${res.statusCode}`))));
      req.on('error', reject);
      req.end();
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    assert.equal(socket.destroyed, false, 'the straight tunnel is open');
    served.routeThrough(proxyOf(`http://tenant:secret@127.0.0.1:${connectProxy.port}`));
    await closed;
  });

  it('tunnels CONNECT through the tenant’s proxy, and answers a refused one with 502', async () => {
    served.routeThrough(proxyOf(`http://tenant:secret@127.0.0.1:${connectProxy.port}`));
    const { port } = new URL(served.url);
    const connectOnce = () =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'CONNECT', path: `127.0.0.1:${sitePort}` });
        req.on('connect', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    const before = connectProxy.tunnels.length;
    assert.equal(await connectOnce(), 200);
    assert.equal(connectProxy.tunnels.length, before + 1);
    served.routeThrough(proxyOf(`http://tenant:bad@127.0.0.1:${connectProxy.port}`));
    assert.equal(await connectOnce(), 502);
  });
});
