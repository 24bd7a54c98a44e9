import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { closeStart, debuggerUrl, eventually, openStart, type StartedBrowser } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * What users' automation does over the multiplexed DevTools pipe of a sandboxed instance: the
 * features that need more than one session, several targets or a second client.
 */
describe('clients on the multiplexed DevTools connection', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let started: StartedBrowser;
  let url: string;

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    started = await openStart(service.wsUrl, service.createKey().token);
    url = await debuggerUrl(service.url, started.headers);
  });
  after(async () => {
    if (started) await closeStart(service.url, started);
    await pages?.close();
    await service?.stop();
  });

  it('serves Playwright PDFs, request interception, tracing, iframes and workers', async () => {
    const browser = await chromium.connectOverCDP(url, { headers: started.headers });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route('**/intercepted', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<title>fulfilled</title><iframe srcdoc="<p id=inner>in a frame</p>"></iframe>' }),
      );
      await page.goto(`${pages.url}intercepted`);
      assert.equal(await page.title(), 'fulfilled', 'interception answered the request');
      const frame = page.frames().find((f) => f !== page.mainFrame());
      assert.equal(await frame?.textContent('#inner'), 'in a frame');

      const worker = page.waitForEvent('worker');
      await page.evaluate(
        () => void new Worker(URL.createObjectURL(new Blob(['onmessage = () => postMessage(6 * 7)'], { type: 'text/javascript' }))),
      );
      assert.equal(await (await worker).evaluate(() => 6 * 7), 42, 'a worker target is reachable');

      const pdf = await page.pdf();
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');

      await browser.startTracing(page, { categories: ['devtools.timeline'] });
      await page.goto(pages.url);
      const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: unknown[] };
      assert.ok(trace.traceEvents.length > 0, 'the trace came back through IO.read');
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it('lets two clients drive one instance at once, each in its own sessions', async () => {
    const pw = await chromium.connectOverCDP(url, { headers: started.headers });
    const pp = await puppeteer.connect({ browserWSEndpoint: url, headers: started.headers });
    try {
      const pwPage = await (await pw.newContext()).newPage();
      const ppPage = await pp.newPage();
      await Promise.all([pwPage.goto(`${pages.url}?pw`), ppPage.goto(`${pages.url}?pp`)]);
      const [a, b] = await Promise.all([pwPage.evaluate(() => location.search), ppPage.evaluate(() => location.search)]);
      assert.deepEqual([a, b], ['?pw', '?pp']);
      // Both see the instance's targets, each driving its own.
      const pwTargets = (await pp.targets()).map((t) => t.url());
      assert.ok(
        pwTargets.some((u) => u.endsWith('?pw')),
        'puppeteer sees the page Playwright opened',
      );
    } finally {
      await pp.disconnect();
      await pw.close();
    }
  });

  it("keeps pages and contexts across a reconnect to the same id, as Chromium's own DevTools server does", async () => {
    const first = await RawCdp.connect(url, started.headers);
    const { browserContextId } = await first.send<{ browserContextId: string }>('Target.createBrowserContext');
    const { targetId } = await first.send<{ targetId: string }>('Target.createTarget', { url: pages.url, browserContextId });
    const kept = await first.send<{ targetId: string }>('Target.createTarget', { url: `${pages.url}?kept` });
    await first.close();

    const second = await RawCdp.connect(url, started.headers);
    try {
      const targets = async () =>
        (await second.send<{ targetInfos: { targetId: string }[] }>('Target.getTargets')).targetInfos.map((t) => t.targetId);
      assert.ok((await targets()).includes(kept.targetId), 'a page of the default context outlives its client');
      assert.ok((await targets()).includes(targetId), 'and so does a page of a context the departed client created');
      const { browserContextIds } = await second.send<{ browserContextIds: string[] }>('Target.getBrowserContexts');
      assert.ok(browserContextIds.includes(browserContextId), 'its context stays until closed (or the instance ends)');
    } finally {
      await second.close();
    }
  });

  it('connects to one page with /devtools/page/<targetId>, and closes with 4404 when that page closes', async () => {
    const browserClient = await RawCdp.connect(url, started.headers);
    try {
      const { targetId } = await browserClient.send<{ targetId: string }>('Target.createTarget', { url: pages.url });
      const pageUrl = url.replace(/\/devtools\/browser\/.*$/, `/devtools/page/${targetId}`);
      const page = await RawCdp.connect(pageUrl, started.headers);
      const closed = new Promise<number>((resolve) => page.socket.once('close', (code) => resolve(code)));
      const title = async () =>
        (await page.send<{ result: { value: string } }>('Runtime.evaluate', { expression: 'document.title', returnByValue: true })).result
          .value;
      assert.equal(await eventually(title, (t) => t !== ''), 'Periscope test page', 'commands without a session go to that page');
      await browserClient.send('Target.closeTarget', { targetId });
      assert.equal(await closed, 4404);
      await assert.rejects(
        RawCdp.connect(url.replace(/\/devtools\/browser\/.*$/, '/devtools/page/0123456789ABCDEF0123456789ABCDEF'), started.headers),
        /404/,
      );
    } finally {
      await browserClient.close();
    }
  });
});
