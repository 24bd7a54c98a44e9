import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { closeStart, debuggerUrl, openStart, type StartedBrowser } from '../helpers/browser.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

describe('egress policy of the remote browsers (default configuration)', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let started: StartedBrowser;
  let browser: Browser;
  let hits = 0;

  before(async () => {
    service = await startService();
    pages = await startPageServer();
    pages.server.prependListener('request', () => hits++);
    started = await openStart(service.wsUrl, service.createKey().token);
    browser = await chromium.connectOverCDP(await debuggerUrl(service.url, started.headers), { headers: started.headers });
  });
  after(async () => {
    await browser?.close();
    if (started) await closeStart(service.url, started);
    await pages?.close();
    await service?.stop();
  });

  /** Navigate and report what the page got: an HTTP status, or Chromium's network error. */
  async function visit(url: string): Promise<{ status?: number; error?: string; text?: string }> {
    const page = await browser.contexts()[0]!.newPage();
    try {
      const res = await page.goto(url, { timeout: 10_000 });
      return { status: res?.status(), text: (await page.textContent('body')) ?? '' };
    } catch (err) {
      return { error: (err as Error).message };
    } finally {
      await page.close();
    }
  }

  it('refuses a loopback address', async () => {
    const r = await visit(pages.url);
    assert.equal(r.status, 403);
    assert.match(r.text ?? '', /Blocked by the egress policy/);
  });

  it('refuses a DNS name that resolves to loopback', async () => {
    const r = await visit(pages.url.replace('127.0.0.1', 'localhost'));
    assert.equal(r.status, 403);
    assert.match(r.text ?? '', /localhost/);
  });

  it('refuses tunnels (https, wss) to private and metadata addresses', async () => {
    const port = new URL(pages.url).port;
    for (const url of [
      `https://127.0.0.1:${port}/`,
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      `https://[::1]:${port}/`,
    ]) {
      const r = await visit(url);
      assert.match(r.error ?? '', /ERR_TUNNEL_CONNECTION_FAILED/, url);
    }
  });

  it('refuses plain http to cloud metadata addresses and private ranges', async () => {
    const port = new URL(pages.url).port;
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://168.63.129.16/',
      'http://192.168.1.1/',
      `http://[::ffff:127.0.0.1]:${port}/`,
    ]) {
      const r = await visit(url);
      assert.equal(r.status, 403, url);
    }
  });

  it('keeps page scripts out too: the loopback server never saw a request', async () => {
    const page = await browser.contexts()[0]!.newPage();
    await page.goto('about:blank');
    await page.evaluate(async (u) => {
      await fetch(u, { mode: 'no-cors' }).catch(() => null);
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(u.replace('http', 'ws'));
        ws.onerror = ws.onclose = () => resolve();
      });
    }, pages.url);
    await page.close();
    assert.equal(hits, 0, 'the loopback page server received no request');
  });

  it('counts refusals by reason on /metrics, and keeps them out of the log below debug', async () => {
    const r = await visit('http://no-such-host.invalid/');
    assert.notEqual(r.status, 200);
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const count = (reason: string) =>
      Number(new RegExp(`^periscope_egress_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    assert.ok(count('denied_address') >= 5, `denied_address counted (${count('denied_address')})`);
    assert.ok(count('unresolved') >= 1, `unresolved counted (${count('unresolved')})`);
    assert.equal(service.logs.filter((l) => l.msg === 'egress refused').length, 0, 'refusals are debug lines');
  });
});
