import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  Periscope,
  RateLimitError,
  TimeoutError,
  type RemoteBrowser,
} from '../../clients/typescript/src/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { startPageServer } from '../helpers/pages.ts';
import { page, runIndex } from '../helpers/search.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { startSocksProxy } from '../helpers/upstream-proxies.ts';

/**
 * The TypeScript client as its users meet it: against the real service and real Chromium, every
 * typed error provoked for real. (Its packed tarball on Node 20 is tests/clients/typescript-package.test.ts.)
 */
describe('@periscope/client', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let periscope: Periscope;

  before(async () => {
    const site = mkdtempSync(join(tmpdir(), 'periscope-client-site-'));
    mkdirSync(join(site, 'guide'));
    writeFileSync(join(site, 'index.html'), page('Falcot handbook', '<h1>Falcot handbook</h1><p>Routers and kettles of Falcot Corp.</p>'));
    writeFileSync(
      join(site, 'guide', 'kettle.html'),
      page('Descaling the kettle', '<h1>Descaling the kettle</h1><p>Use citric acid to descale the kettle every month.</p>'),
    );
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const indexed = runIndex(dataDir, [site, '--base-url', 'https://docs.falcot.test/', '--quiet']);
    assert.equal(indexed.status, 0, indexed.stderr);
    // A rate window of 2 s: a retry honouring Retry-After can be seen succeeding within the test.
    service = await startService({ DATA_DIR: dataDir, BROWSER_EGRESS_ALLOW: '127.0.0.1/32', SEARCH_RATE_WINDOW_SECONDS: '2' });
    pages = await startPageServer();
    periscope = new Periscope({ apiKey: service.createKey({ name: 'client', maxInstances: 3 }).token, baseUrl: service.url });
  });
  after(async () => {
    await pages?.close();
    await service?.stop();
  });

  it('starts a browser that Playwright drives, and ends it with stop()', async () => {
    const browser = await periscope.browsers.start();
    assert.match(browser.id, /^br_[A-Za-z0-9_-]{32}$/);
    assert.ok(browser.webSocketDebuggerUrl.startsWith(`${service.wsUrl}/devtools/browser/`), browser.webSocketDebuggerUrl);
    assert.deepEqual(Object.keys(browser.headers).sort(), ['Authorization', 'X-Browser-ID']);
    assert.match(browser.version.Browser, /Chrome/);
    const pw = await browser.connectPlaywright(chromium);
    const tab = await pw.contexts()[0]!.newPage();
    await tab.goto(pages.url);
    assert.equal(await tab.title(), 'Periscope test page');
    await tab.click('#button');
    assert.equal(await tab.textContent('#heading'), 'Clicked 1');

    const listed = await periscope.browsers.list({ status: 'live' });
    assert.ok(
      listed.some((b) => b.id === browser.id && b.status === 'live'),
      'the key lists its live browser',
    );
    assert.equal(browser.live, true);
    const end = await browser.stop();
    assert.deepEqual(end, { reason: 'client-closed', code: 1000, message: 'client stopped the browser' });
    assert.equal(browser.live, false);
    assert.equal(await browser.ended, end, 'ended settles with the same end');
    const ended = await eventually(
      () => periscope.browsers.list({ status: 'ended' }),
      (list) => list.some((b) => b.id === browser.id),
    );
    assert.equal(ended.find((b) => b.id === browser.id)?.endReason, 'client-closed');
    const connected = await eventually(
      () => pw.isConnected(),
      (c) => !c,
    );
    assert.equal(connected, false, 'the Playwright connection ended with the browser');
  });

  it('hands puppeteer a connected browser through browsers.with, and stops it after', async () => {
    let id = '';
    const title = await periscope.browsers.with(async (browser) => {
      id = browser.id;
      const pptr = await browser.connectPuppeteer(puppeteer);
      const tab = await pptr.newPage();
      await tab.goto(pages.url);
      const t = await tab.title();
      await pptr.disconnect();
      return t;
    });
    assert.equal(title, 'Periscope test page');
    const listed = await eventually(
      () => periscope.browsers.list(),
      (list) => list.some((b) => b.id === id && b.status === 'ended'),
    );
    assert.equal(listed.find((b) => b.id === id)?.status, 'ended', 'with() stopped the browser');
  });

  it('reports a browser stopped through the API as stopped (4410)', async () => {
    const browser = await periscope.browsers.start();
    await periscope.browsers.stop(browser.id);
    assert.deepEqual(await browser.ended, { reason: 'stopped', code: 4410, message: 'stopped through the API' });
    await assert.rejects(periscope.browsers.stop(browser.id), NotFoundError, 'an ended browser cannot be stopped again');
    await assert.rejects(periscope.browsers.stop('br_not-an-id'), (err: unknown) => err instanceof InvalidRequestError);
  });

  it('starts a browser from a saved profile with { profile, persist }, lists and deletes profiles', async () => {
    const writer = await periscope.browsers.start({ profile: 'client-profile', persist: true });
    const pw = await writer.connectPlaywright(chromium);
    const tab = await pw.contexts()[0]!.newPage();
    await tab.goto(pages.url);
    await tab.evaluate(() => localStorage.setItem('kept', 'by the profile'));
    await pw.close();
    await assert.rejects(periscope.browsers.start({ profile: 'client-profile', persist: true }), ConflictError);
    await writer.stop();
    const listed = await eventually(
      () => periscope.profiles.list(),
      (list) => list.some((p) => p.name === 'client-profile' && !p.inUse),
      20_000,
    );
    assert.ok((listed.find((p) => p.name === 'client-profile')?.bytes ?? 0) > 0);

    const reader = await periscope.browsers.start({ profile: 'client-profile' });
    const again = await reader.connectPlaywright(chromium);
    const page2 = await again.contexts()[0]!.newPage();
    await page2.goto(pages.url);
    assert.equal(await page2.evaluate(() => localStorage.getItem('kept')), 'by the profile');
    await again.close();
    await reader.stop();

    await periscope.profiles.delete('client-profile');
    assert.equal(
      (await periscope.profiles.list()).some((p) => p.name === 'client-profile'),
      false,
    );
    await assert.rejects(periscope.profiles.delete('client-profile'), NotFoundError);
    await assert.rejects(
      periscope.browsers.start({ profile: '../x' }),
      (err: unknown) => err instanceof InvalidRequestError && err.field === 'profile',
    );
  });

  it('uploads files for inputs, lists and removes them, and fetches downloads', async () => {
    await periscope.browsers.with(async (browser) => {
      const uploaded = await browser.uploadFile('notes.txt', 'hello from the client');
      assert.deepEqual(uploaded, { name: 'notes.txt', path: '/uploads/notes.txt', size: 21 });
      assert.deepEqual(await browser.uploads(), [uploaded]);
      await assert.rejects(
        browser.uploadFile('../escape', 'x'),
        (err: unknown) => err instanceof InvalidRequestError && err.status === 400,
      );
      await browser.deleteUpload('notes.txt');
      assert.deepEqual(await browser.uploads(), []);
      await assert.rejects(browser.deleteUpload('notes.txt'), NotFoundError);

      const pptr = await browser.connectPuppeteer(puppeteer);
      const tab = await pptr.newPage();
      const cdp = await tab.createCDPSession();
      await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/downloads' });
      await tab.goto(pages.url);
      await tab.evaluate((href) => {
        const a = Object.assign(document.createElement('a'), { href, download: '' });
        document.body.append(a);
        a.click();
      }, `${pages.url}download`);
      const files = await eventually(
        () => browser.downloads(),
        (list) => list.some((f) => f.name === 'report.txt' && f.complete),
        15_000,
      );
      assert.equal(files.find((f) => f.name === 'report.txt')?.size, 'downloaded content'.length);
      assert.equal(new TextDecoder().decode(await browser.download('report.txt')), 'downloaded content');
      await assert.rejects(browser.download('absent.txt'), NotFoundError);
      await pptr.disconnect();
    });
  });

  it('reads the service’s health', async () => {
    const health = await periscope.health();
    assert.equal(health.status, 'ok');
    assert.ok(health.browsers.capacity > 0);
    assert.equal(health.search.pages, 2);
  });

  it('searches with typed results and rate-limit state', async () => {
    const answer = await periscope.search({ query: 'descale kettle', count: 5 });
    assert.equal(answer.results[0]?.url, 'https://docs.falcot.test/guide/kettle.html');
    assert.equal(answer.results[0]?.title, 'Descaling the kettle');
    assert.match(answer.results[0]?.snippet ?? '', /citric acid/);
    assert.equal(answer.next, undefined, 'one page of results');
    assert.equal(answer.rateLimit?.limit, 40);
    assert.ok((answer.rateLimit?.remaining ?? -1) >= 0);
    assert.equal(answer.tries, undefined, 'a search that found something has nothing to try');
    const elsewhere = await periscope.search({ query: 'kettle', sites: ['elsewhere.test'] });
    assert.deepEqual([elsewhere.results, elsewhere.tries], [[], [{ query: 'kettle', language: 'en', why: 'every-site' }]]);
  });

  it('fetches a page as Markdown, takes its screenshot and prints it', async () => {
    const page = await periscope.fetch({ url: pages.url, format: 'text' });
    assert.equal(page.title, 'Periscope test page');
    assert.equal(page.status, 200);
    assert.match(page.content, /Hello from a local page/);
    const png = await periscope.screenshot({ url: pages.url, viewport: { width: 640, height: 480 } });
    assert.equal(new TextDecoder().decode(png.subarray(1, 4)), 'PNG');
    const pdf = await periscope.pdf({ url: pages.url, format: 'a4' });
    assert.equal(new TextDecoder().decode(pdf.subarray(0, 5)), '%PDF-');
    const err = await periscope.fetch({ url: 'ftp://example.com/' }).catch((e: unknown) => e);
    assert.ok(err instanceof InvalidRequestError && err.field === 'url', String(err));
  });

  it('sends `proxy` as X-Browser-Proxy, for a browser and for a page action', async () => {
    const proxy = await startSocksProxy({ username: 'u', password: 'p' });
    const target = new URL(pages.url).host;
    try {
      const url = `socks5://u:p@127.0.0.1:${proxy.port}`;
      await periscope.browsers.with(
        async (browser) => {
          const cdp = await browser.connectPlaywright(chromium);
          const tab = await cdp.contexts()[0]!.newPage();
          assert.equal((await tab.goto(pages.url))?.status(), 200);
          await cdp.close();
        },
        { proxy: url },
      );
      assert.ok(proxy.tunnels.includes(target), 'the browser’s page went through the proxy');
      const before = proxy.tunnels.length;
      assert.equal((await periscope.fetch({ url: pages.url, proxy: url })).status, 200);
      assert.ok(proxy.tunnels.slice(before).includes(target), 'the page action went through the proxy');
      const err = await periscope.fetch({ url: pages.url, proxy: 'socks5://nowhere' }).catch((e: unknown) => e);
      assert.ok(err instanceof InvalidRequestError && err.field === 'X-Browser-Proxy', String(err));
    } finally {
      await proxy.close();
    }
  });

  it('throws InvalidRequestError naming the wrong field', async () => {
    const err = await periscope.search({ query: 'kettle', count: 0 }).catch((e: unknown) => e);
    assert.ok(err instanceof InvalidRequestError, String(err));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'invalid');
    assert.equal(err.field, 'count');
    assert.match(err.issues[0]?.message ?? '', /count|integer|1/);
  });

  it('throws AuthenticationError for a bad key, on search and on start', async () => {
    const bad = new Periscope({ apiKey: 'psk_0000000000000000_notakeynotakeynotakeynotakeynotakeynotakeyn', baseUrl: service.url });
    await assert.rejects(bad.search({ query: 'kettle' }), (err: unknown) => err instanceof AuthenticationError && err.status === 401);
    await assert.rejects(bad.browsers.start(), (err: unknown) => err instanceof AuthenticationError && err.code === 'unauthorized');
  });

  it('throws RateLimitError with retryAfter at the key’s browser limit', async () => {
    const limited = new Periscope({ apiKey: service.createKey({ name: 'one browser', maxInstances: 1 }).token, baseUrl: service.url });
    const first = await limited.browsers.start();
    try {
      const err = await limited.browsers.start().catch((e: unknown) => e);
      assert.ok(err instanceof RateLimitError, String(err));
      assert.equal(err.status, 429);
      assert.ok((err.retryAfter ?? 0) > 0, `Retry-After: ${err.retryAfter}`);
    } finally {
      await first.stop();
    }
  });

  it('throws RateLimitError past the search rate, and retries after Retry-After by default', async () => {
    const key = service.createKey({ name: 'two a window', ratePerMinute: 2 }).token;
    const strict = new Periscope({ apiKey: key, baseUrl: service.url, maxRetries: 0 });
    await strict.search({ query: 'kettle' });
    await strict.search({ query: 'kettle' });
    const err = await strict.search({ query: 'kettle' }).catch((e: unknown) => e);
    assert.ok(err instanceof RateLimitError, String(err));
    assert.ok((err.retryAfter ?? 0) >= 1, `Retry-After: ${err.retryAfter}`);

    // The same key with retries on: the refused request waits for Retry-After and then succeeds.
    const patient = new Periscope({ apiKey: key, baseUrl: service.url });
    const answer = await patient.search({ query: 'kettle' });
    assert.ok(answer.results.length > 0);

    // A retry that would wait longer than the bound is not made.
    const hasty = new Periscope({ apiKey: key, baseUrl: service.url, maxRetryDelayMs: 10 });
    await hasty.search({ query: 'kettle' }).catch(() => undefined);
    await hasty.search({ query: 'kettle' }).catch(() => undefined);
    await assert.rejects(hasty.search({ query: 'kettle' }), RateLimitError);
  });

  it('cancels calls with an AbortSignal, times them out, and leaves no browser behind', async () => {
    const aborted = AbortSignal.abort(new Error('changed my mind'));
    await assert.rejects(periscope.search({ query: 'kettle' }, { signal: aborted }), /changed my mind/);
    await assert.rejects(periscope.browsers.start({ signal: aborted }), /changed my mind/);

    const controller = new AbortController();
    const starting = periscope.browsers.start({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('gone')), 5);
    await assert.rejects(starting, /gone/);
    await assert.rejects(periscope.browsers.start({ timeoutMs: 1 }), TimeoutError);
    const live = await eventually(
      () => periscope.browsers.list({ status: 'live' }),
      (list) => list.length === 0,
      10_000,
    );
    assert.deepEqual(live, [], `a cancelled start leaves no browser: ${JSON.stringify(live)}`);
  });

  it('reads a recorded browser’s events and frames, and searches recordings', async () => {
    const recorded = service.createKey({ name: 'recorded' });
    assert.equal(service.keysCli(['record', recorded.id, 'on']).status, 0);
    const client = new Periscope({ apiKey: recorded.token, baseUrl: service.url });
    let browser: RemoteBrowser | undefined;
    try {
      browser = await client.browsers.start();
      const pw = await browser.connectPlaywright(chromium);
      const tab = await pw.contexts()[0]!.newPage();
      await tab.goto(pages.url);
      await tab.evaluate(() => console.error('client test says hello'));
      const recording = await eventually(
        () => client.browsers.recording(browser!.id),
        (r) => r.events.some((e) => e.type === 'console') && r.events.some((e) => e.type === 'frame'),
        15_000,
      );
      assert.ok(
        recording.events.some((e) => e.type === 'frame'),
        'a frame was recorded',
      );
      assert.equal(recording.live, true);
      const frame = recording.events.find((e) => e.type === 'frame') as { offset: number; length: number } | undefined;
      const jpeg = await client.browsers.recordingFrame(browser.id, frame!);
      assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
      const last = recording.events.at(-1)!.seq;
      assert.ok((await client.browsers.recording(browser.id, { after: last })).events.every((e) => e.seq > last));
      const found = await client.recordings.events({ q: 'says hello', type: ['console'] });
      assert.equal(found.matches[0]?.browser, browser.id);
      await assert.rejects(client.recordings.events({ limit: 0 }), InvalidRequestError);
    } finally {
      await browser?.stop();
    }
  });

  it('says when the service cannot be reached, and refuses a client without a key', async () => {
    const nowhere = new Periscope({ apiKey: 'psk_x', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    await assert.rejects(nowhere.search({ query: 'x' }), ConnectionError);
    await assert.rejects(nowhere.browsers.start(), ConnectionError);
    const saved = process.env.PERISCOPE_API_KEY;
    delete process.env.PERISCOPE_API_KEY;
    try {
      assert.throws(() => new Periscope({ baseUrl: service.url }), /PERISCOPE_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.PERISCOPE_API_KEY = saved;
    }
    assert.throws(() => new Periscope({ apiKey: 'k', baseUrl: 'ftp://example.com' }), /http or https/);
  });
});
