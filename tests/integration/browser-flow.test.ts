import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { debuggerUrl, openStart } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

describe('the browser flow (docs/api.md, Cloud browser) with real Chromium', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let token: string;

  before(async () => {
    // The tests visit a page on loopback, which the egress policy refuses unless allowed.
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    token = service.createKey({ name: 'flow' }).token;
  });
  after(async () => {
    await pages.close();
    await service.stop();
  });

  it('provisions, advertises and proxies raw CDP, with flattened sessions and large messages', async () => {
    const started = await openStart(service.wsUrl, token);
    assert.match(started.id, /^br_[A-Za-z0-9_-]{32}$/);

    const res = await fetch(`${service.url}/json/version`, { headers: started.headers });
    assert.equal(res.status, 200);
    const version = (await res.json()) as Record<string, string>;
    for (const field of ['Browser', 'Protocol-Version', 'User-Agent', 'V8-Version', 'WebKit-Version']) {
      assert.ok(version[field], `/json/version has ${field}`);
    }
    const wsUrl = new URL(version.webSocketDebuggerUrl as string);
    assert.equal(wsUrl.origin, service.wsUrl);
    assert.match(wsUrl.pathname, /^\/devtools\/browser\/[0-9a-f-]+$/);

    const cdp = await RawCdp.connect(wsUrl.href, started.headers);
    const browserVersion = await cdp.send<{ product: string }>('Browser.getVersion');
    assert.equal(browserVersion.product, version.Browser);

    const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const two = await cdp.send<{ result: { value: number } }>('Runtime.evaluate', { expression: '1+1' }, sessionId);
    assert.equal(two.result.value, 2);

    const size = await cdp.send<{ result: { value: number[] } }>(
      'Runtime.evaluate',
      { expression: '[innerWidth, innerHeight]', returnByValue: true },
      sessionId,
    );
    assert.deepEqual(size.result.value, [1280, 720], 'default viewport is 1280x720');

    // 8 MiB in one message each way.
    const big = await cdp.send<{ result: { value: string } }>(
      'Runtime.evaluate',
      { expression: "'x'.repeat(8 * 1024 * 1024)", returnByValue: true },
      sessionId,
    );
    assert.equal(big.result.value.length, 8 * 1024 * 1024);
    const payload = 'y'.repeat(8 * 1024 * 1024);
    const echoed = await cdp.send<{ result: { value: number } }>('Runtime.evaluate', { expression: `'${payload}'.length` }, sessionId);
    assert.equal(echoed.result.value, payload.length);

    // Two DevTools connections to one instance at once, and a page-level address.
    const second = await RawCdp.connect(wsUrl.href, started.headers);
    const { targetInfos } = await second.send<{ targetInfos: { targetId: string; type: string }[] }>('Target.getTargets');
    assert.ok(targetInfos.some((t) => t.targetId === targetId));
    const pageCdp = await RawCdp.connect(`${service.wsUrl}/devtools/page/${targetId}`, started.headers);
    const three = await pageCdp.send<{ result: { value: number } }>('Runtime.evaluate', { expression: '1+2' });
    assert.equal(three.result.value, 3);

    await Promise.all([cdp.close(), second.close(), pageCdp.close()]);
    started.socket.close();
    const closed = await started.closed;
    assert.equal(closed.code, 1005);
  });

  it('lets Playwright connectOverCDP drive an instance end to end', async () => {
    const started = await openStart(service.wsUrl, token);
    const url = await debuggerUrl(service.url, started.headers);
    const browser = await chromium.connectOverCDP(url, { headers: started.headers });
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = await context.newPage();
      await page.goto(pages.url);
      assert.equal(await page.title(), 'Periscope test page');
      await page.click('#button');
      await page.click('#button');
      assert.equal(await page.textContent('#heading'), 'Clicked 2');
      await page.fill('#field', 'typed by Playwright');
      assert.equal(await page.inputValue('#field'), 'typed by Playwright');
    } finally {
      await browser.close();
      started.socket.close();
      await started.closed;
    }
  });

  it('lets Playwright connect with the http endpoint too (it fetches /json/version/ itself)', async () => {
    const started = await openStart(service.wsUrl, token);
    const browser = await chromium.connectOverCDP(service.url, { headers: started.headers });
    try {
      const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
      await page.goto(pages.url);
      assert.equal(await page.textContent('h1'), 'Hello from a local page');
    } finally {
      await browser.close();
      started.socket.close();
      await started.closed;
    }
  });

  it('lets puppeteer-core connect drive an instance end to end', async () => {
    const started = await openStart(service.wsUrl, token);
    const url = await debuggerUrl(service.url, started.headers);
    const browser = await puppeteer.connect({ browserWSEndpoint: url, headers: started.headers, defaultViewport: null });
    try {
      const page = await browser.newPage();
      await page.goto(pages.url);
      await page.click('#button');
      const heading = await page.$eval('#heading', (el) => el.textContent);
      assert.equal(heading, 'Clicked 1');
      await page.type('#field', 'typed by puppeteer');
      assert.equal(await page.$eval('#field', (el) => (el as HTMLInputElement).value), 'typed by puppeteer');
    } finally {
      await browser.disconnect();
      started.socket.close();
      await started.closed;
    }
  });
});
