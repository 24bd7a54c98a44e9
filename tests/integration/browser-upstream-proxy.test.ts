import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { closeStart, debuggerUrl, openStart, refusedStart, type StartedBrowser } from '../helpers/browser.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { selfSignedCertificate, startConnectProxy, startSocksProxy, type FixtureProxy } from '../helpers/upstream-proxies.ts';

/** The password of the fixture proxies: a string that must never leave the service. */
const SECRET = 'planted-Pr0xy-secret-5d2e';
const USER = 'tenant-user-7c1a';

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('the tenant’s own upstream proxy (X-Browser-Proxy), with a real service and Chromium', () => {
  let service: ServiceProcess;
  let token: string;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let connectProxy: FixtureProxy;
  let socksProxy: FixtureProxy;
  let tlsProxy: FixtureProxy;
  let hits = 0;
  const held: { started: StartedBrowser; browser: Browser }[] = [];

  before(async () => {
    // 127.0.0.1 stands in for the internet (the fixture proxies and the site); the rest of loopback
    // and the private ranges stay refused. Debug logs, so that every egress refusal is in the log searched.
    // The https proxy's certificate is trusted by the service as an operator would make it trust a
    // private authority (NODE_EXTRA_CA_CERTS).
    const certificate = selfSignedCertificate();
    const caFile = join(mkdtempSync(join(tmpdir(), 'periscope-ca-')), 'ca.pem');
    writeFileSync(caFile, certificate.cert);
    service = await startService({
      BROWSER_POOL_SIZE: '1',
      BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
      LOG_LEVEL: 'debug',
      NODE_EXTRA_CA_CERTS: caFile,
    });
    tlsProxy = await startConnectProxy({ username: USER, password: SECRET }, '127.0.0.1', certificate);
    token = service.createKey({ maxInstances: 10, actionsPerMinute: 1000 }).token;
    pages = await startPageServer();
    pages.server.prependListener('request', () => hits++);
    connectProxy = await startConnectProxy({ username: USER, password: SECRET });
    socksProxy = await startSocksProxy({ username: USER, password: SECRET });
  });
  after(async () => {
    for (const { started, browser } of held) {
      await browser.close().catch(() => {});
      await closeStart(service.url, started).catch(() => {});
    }
    await connectProxy?.close();
    await socksProxy?.close();
    await tlsProxy?.close();
    await pages?.close();
    await service?.stop();
  });

  const proxyUrl = (scheme: string, port: number, password = SECRET, host = '127.0.0.1') =>
    `${scheme}://${USER}:${encodeURIComponent(password)}@${host}:${port}`;

  /** A browser started with the header, driven over CDP as a client would. */
  async function startWith(proxy: string): Promise<Browser> {
    const started = await openStart(service.wsUrl, token, { 'x-browser-proxy': proxy });
    const browser = await chromium.connectOverCDP(await debuggerUrl(service.url, started.headers), { headers: started.headers });
    held.push({ started, browser });
    return browser;
  }

  async function visit(browser: Browser, url: string): Promise<{ status?: number; text?: string; error?: string }> {
    const page = await browser.contexts()[0]!.newPage();
    try {
      const res = await page.goto(url, { timeout: 15_000 });
      return { status: res?.status(), text: (await page.textContent('body')) ?? '' };
    } catch (err) {
      return { error: (err as Error).message };
    } finally {
      await page.close();
    }
  }

  const fetchAction = async (url: string, proxy?: string) => {
    const res = await fetch(`${service.url}/v0/fetch`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(proxy ? { 'x-browser-proxy': proxy } : {}),
      },
      body: JSON.stringify({ url, timeoutMs: 20_000 }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses bad header values before the handshake and before any browser, naming the header', async () => {
    for (const bad of [
      'ftp://proxy.example:21',
      'http://proxy.example',
      'junk',
      `http://${'a'.repeat(1100)}.example:80`,
      'http://us"er:pw@proxy.example:80',
      'socks5://user:p w@proxy.example:1080',
    ]) {
      const r = await refusedStart(service.wsUrl, { authorization: `Bearer ${token}`, 'x-browser-proxy': bad });
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.code, 'invalid');
      assert.equal((r.body.issues as { field: string }[])[0]?.field, 'X-Browser-Proxy', bad);
      const action = await fetchAction(pages.url, bad);
      assert.equal(action.status, 400, bad);
      assert.equal((action.body.issues as { field: string }[])[0]?.field, 'X-Browser-Proxy');
    }
  });

  it('loads a page through an HTTP CONNECT proxy with Basic authentication', async () => {
    const browser = await startWith(proxyUrl('http', connectProxy.port));
    const before = { tunnels: connectProxy.tunnels.length, carried: connectProxy.carried, hits };
    const r = await visit(browser, pages.url);
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.match(r.text ?? '', /./);
    assert.ok(connectProxy.tunnels.slice(before.tunnels).includes(new URL(pages.url).host), 'the page’s connection went through the proxy');
    assert.ok(connectProxy.carried > before.carried, 'the request itself went through the proxy');
    assert.ok(hits > before.hits);
  });

  it('loads a page through an https proxy (TLS to the proxy, CONNECT inside)', async () => {
    const before = { tunnels: tlsProxy.tunnels.length, carried: tlsProxy.carried };
    const action = await fetchAction(pages.url, proxyUrl('https', tlsProxy.port));
    assert.equal(action.status, 200, JSON.stringify(action.body));
    assert.ok(tlsProxy.tunnels.slice(before.tunnels).includes(new URL(pages.url).host));
    assert.ok(tlsProxy.carried > before.carried);
  });

  it('loads a page through a SOCKS5 proxy with a username and password, and a page action does too', async () => {
    const browser = await startWith(proxyUrl('socks5', socksProxy.port));
    let before = { tunnels: socksProxy.tunnels.length, carried: socksProxy.carried };
    const r = await visit(browser, pages.url);
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.ok(socksProxy.tunnels.slice(before.tunnels).includes(new URL(pages.url).host));
    assert.ok(socksProxy.carried > before.carried);

    before = { tunnels: socksProxy.tunnels.length, carried: socksProxy.carried };
    const action = await fetchAction(pages.url, proxyUrl('socks5', socksProxy.port));
    assert.equal(action.status, 200, JSON.stringify(action.body));
    assert.ok(socksProxy.tunnels.slice(before.tunnels).includes(new URL(pages.url).host), 'the page action went through the proxy');
  });

  it('shows a refused login in the page’s error, for http and for a tunnel (https)', async () => {
    const browser = await startWith(proxyUrl('http', connectProxy.port, 'wrong-password'));
    const refused = connectProxy.refusedLogins;
    const r = await visit(browser, pages.url);
    assert.equal(r.status, 502);
    assert.match(r.text ?? '', /Your proxy refused the login/);
    assert.match(r.text ?? '', /407 Proxy Authentication Required/);
    assert.ok(connectProxy.refusedLogins > refused, 'the fixture saw the wrong login');
    const tunnel = await visit(browser, `https://127.0.0.1:${new URL(pages.url).port}/`);
    assert.match(tunnel.error ?? '', /ERR_TUNNEL_CONNECTION_FAILED/);
    // The page action explains the failed tunnel with what the instance's own proxy said.
    const action = await fetchAction(`https://127.0.0.1:${new URL(pages.url).port}/`, proxyUrl('socks5', socksProxy.port, 'wrong'));
    assert.equal(action.status, 502);
    assert.match(String(action.body.error), /ERR_TUNNEL_CONNECTION_FAILED: your proxy failed: .*refused the login/);
  });

  it('shows an unreachable proxy in the page’s error', async () => {
    const port = await closedPort();
    const action = await fetchAction(pages.url, proxyUrl('http', port));
    assert.equal(action.status, 502);
    assert.match(String(action.body.error), /your proxy did not answer \(.*ECONNREFUSED/);
  });

  it('refuses a proxy named at a loopback or private address the policy does not allow, and says why', async () => {
    const browser = await startWith(proxyUrl('http', connectProxy.port, SECRET, '127.0.0.2'));
    const r = await visit(browser, pages.url);
    assert.equal(r.status, 403);
    assert.match(r.text ?? '', /Your proxy is blocked by the egress policy/);
    assert.match(r.text ?? '', /127\.0\.0\.2 is in 127\.0\.0\.0\/8 \(loopback\)/);
    for (const host of ['10.0.0.1', '[::1]', '169.254.169.254']) {
      const action = await fetchAction(pages.url, proxyUrl('socks5', 1080, SECRET, host));
      assert.equal(action.status, 502, host);
      assert.match(String(action.body.error), /your proxy is refused by the egress policy/, host);
    }
  });

  it('keeps the credentials out of every log line, /metrics and /healthz', async () => {
    // First prove that the search sees what reaches the log: a name the page asked for is logged (debug).
    const probe = 'planted-log-probe-3f9a.invalid';
    await fetchAction(`http://${probe}/`);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(JSON.stringify(service.logs).includes(probe), 'the captured log lines hold what the service logged');
    const everything = [
      JSON.stringify(service.logs),
      await (await fetch(`${service.url}/metrics`)).text(),
      await (await fetch(`${service.url}/healthz`)).text(),
    ].join('\n');
    assert.ok(everything.includes('periscope_egress_refused_total'), 'the metrics were read');
    for (const needle of [SECRET, encodeURIComponent(SECRET), Buffer.from(`${USER}:${SECRET}`).toString('base64'), USER, 'wrong-password'])
      assert.ok(!everything.includes(needle), `leaked: ${needle}`);
  });
});

describe('the tenant’s own upstream proxy in single-tenant mode (a loopback listener per instance)', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let otherPages: Awaited<ReturnType<typeof startPageServer>>;
  let proxy: FixtureProxy;

  before(async () => {
    service = await startService({ BROWSER_ISOLATION: 'single-tenant', BROWSER_POOL_SIZE: '1', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    otherPages = await startPageServer();
    proxy = await startSocksProxy({ username: USER, password: SECRET });
  });
  after(async () => {
    await proxy?.close();
    await otherPages?.close();
    await pages?.close();
    await service?.stop();
  });

  it('routes one browser through its proxy and leaves another straight out', async () => {
    const token = service.createKey({ maxInstances: 5 }).token;
    const through = await openStart(service.wsUrl, token, { 'x-browser-proxy': `socks5://${USER}:${SECRET}@127.0.0.1:${proxy.port}` });
    const straight = await openStart(service.wsUrl, token);
    try {
      const load = async (started: StartedBrowser, url: string) => {
        const browser = await chromium.connectOverCDP(await debuggerUrl(service.url, started.headers), { headers: started.headers });
        try {
          const page = await browser.contexts()[0]!.newPage();
          return (await page.goto(url))?.status();
        } finally {
          await browser.close();
        }
      };
      // Each browser visits its own site: the proxied one may still open a tunnel after its page has
      // loaded (its favicon), so a count of tunnels could not tell the two apart; their hosts can.
      const tunnelsTo = (url: string) => proxy.tunnels.filter((host) => host === new URL(url).host).length;
      assert.equal(await load(through, pages.url), 200);
      assert.ok(tunnelsTo(pages.url) > 0, 'the first browser’s page went through the proxy');
      assert.equal(await load(straight, otherPages.url), 200);
      assert.equal(tunnelsTo(otherPages.url), 0, 'the other browser’s did not');
    } finally {
      await closeStart(service.url, through);
      await closeStart(service.url, straight);
    }
  });
});
