import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { Periscope, type RemoteBrowser } from '../../clients/typescript/src/index.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** What a WebSocket to `url` without headers gets: the refusal's status, or 'open'. */
function dial(url: string): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    socket.once('error', reject);
  });
}

/** `/json/version`'s `connectUrl` (docs/api.md, section 2): a ticket for one browser, for clients without headers. */
describe('connectUrl: DevTools for clients that take only an address', () => {
  let service: ServiceProcess;
  let periscope: Periscope;
  let a: RemoteBrowser;
  let b: RemoteBrowser;

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0' });
    periscope = new Periscope({ apiKey: service.createKey({ name: 'url only' }).token, baseUrl: service.url });
    [a, b] = await Promise.all([periscope.browsers.start(), periscope.browsers.start()]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await service?.stop();
  });

  it('opens the browser with no headers at all: Playwright and a raw client', async () => {
    const url = a.connectUrl as string;
    assert.match(url, new RegExp(`^${service.wsUrl}/devtools/browser/[0-9a-f-]+\\?ticket=br_`));
    assert.equal(url.split('?')[0], a.webSocketDebuggerUrl);
    const pw = await chromium.connectOverCDP(url);
    const page = await pw.contexts()[0]!.newPage();
    await page.setContent('<title>no headers</title>');
    assert.equal(await page.title(), 'no headers');
    await pw.close();

    const raw = new WebSocket(url);
    await new Promise((resolve, reject) => raw.once('open', resolve).once('error', reject));
    raw.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    const reply = JSON.parse(String(await new Promise((r) => raw.once('message', r)))) as { result: { product: string } };
    assert.match(reply.result.product, /Chrome/);
    raw.close();
  });

  it('opens that browser’s pages, and nothing of another browser or of the API', async () => {
    const ticket = new URL(a.connectUrl as string).searchParams.get('ticket') as string;
    const cdp = new WebSocket(a.webSocketDebuggerUrl, { headers: a.headers });
    await new Promise((resolve) => cdp.once('open', resolve));
    cdp.send(JSON.stringify({ id: 1, method: 'Target.createTarget', params: { url: 'about:blank' } }));
    const { result } = JSON.parse(String(await new Promise((r) => cdp.once('message', r)))) as { result: { targetId: string } };
    cdp.close();
    assert.equal(await dial(`${service.wsUrl}/devtools/page/${result.targetId}?ticket=${encodeURIComponent(ticket)}`), 'open');

    // Proof that b's own ticket opens b: then a's ticket on b's address must not.
    assert.equal(await dial(b.connectUrl as string), 'open');
    assert.equal(await dial(`${b.webSocketDebuggerUrl}?ticket=${encodeURIComponent(ticket)}`), 404, 'a’s ticket on b’s address');
    const bTicket = new URL(b.connectUrl as string).searchParams.get('ticket') as string;
    assert.equal(
      await dial(`${a.webSocketDebuggerUrl}?ticket=${bTicket.split('.')[0]}.${ticket.split('.')[1]}`),
      401,
      'a’s MAC with b’s id',
    );
    assert.equal(await dial(`${a.webSocketDebuggerUrl}?ticket=${ticket.slice(0, -2)}xx`), 401, 'a tampered ticket');
    assert.equal(await dial(`${a.webSocketDebuggerUrl}?ticket=nonsense`), 401);
    assert.equal(await dial(a.webSocketDebuggerUrl), 401, 'no ticket and no headers');

    for (const path of [`/json/version?ticket=${ticket}`, `/v0/browser/downloads?ticket=${ticket}`, `/v0/browsers?ticket=${ticket}`]) {
      const res = await fetch(`${service.url}${path}`);
      assert.ok(res.status === 400 || res.status === 401, `${path.split('?')[0]} answered ${res.status}`);
    }
  });

  it('ends with its browser, and is in no log line', async () => {
    const url = b.connectUrl as string;
    await b.stop();
    assert.equal(await dial(url), 404);
    const mac = new URL(url).searchParams.get('ticket')?.split('.')[1] as string;
    assert.ok(mac.length > 20);
    assert.ok(service.logs.length > 0, 'the service’s log lines were captured');
    assert.ok(!JSON.stringify(service.logs).includes(mac), 'no log line holds a ticket');
  });
});
