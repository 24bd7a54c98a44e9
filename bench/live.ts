import WebSocket from 'ws';
import type { Chromium } from '#service/browser/chromium.ts';
import { decodeFrame, type FrameMeta } from '#portal/protocol/live.ts';
import { startPageServer } from '../tests/helpers/pages.ts';
import { DirectChromiums, onSessionMessages, type Mode } from './_direct.ts';
import { cpuSeconds, signedInUser, startApp } from './_portal.ts';
import { percentile, printTable } from './_stats.ts';

/**
 * Remote browsing through the portal against the screencast read straight from Chromium, in one
 * run: frames per second, time the relay adds per frame, click to visible change, and the portal's
 * CPU per extra viewer. The page repaints every animation frame; a click turns it into a still black
 * screen (or back), which shows in the size of the next JPEG alone.
 */
const SECONDS = 5;
const CLICKS = 20;
const EXTRA_VIEWERS = 5;
/** The service behind the portal isolates its instances (the default): the raw Chromium runs in the same sandbox. */
const DIRECT_MODE: Mode = 'sandbox';
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Seen = { meta: FrameMeta; at: number; bytes: number };

/** A still black 1280x720 JPEG is a few kilobytes; the animation's frames are many times larger. */
const STILL_BYTES = 12_000;

function portalViewer(url: string, headers: Record<string, string>) {
  const ws = new WebSocket(url, { headers });
  const frames: Seen[] = [];
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      ws.send(JSON.stringify({ type: 'hello', v: 1 }));
      resolve();
    });
    ws.once('error', reject);
  });
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return;
    const { meta, jpeg } = decodeFrame(new Uint8Array(data as Buffer));
    frames.push({ meta, at: now(), bytes: jpeg.byteLength });
  });
  return { ws, frames, opened, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

/** Wait for the first frame after `from` that shows the other state (still or animated); false if none came in time. */
async function waitForChange(frames: Seen[], from: number, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const wasStill = (frames[from - 1]?.bytes ?? Infinity) < STILL_BYTES;
  while (Date.now() < deadline) {
    if (frames.slice(from).some((f) => f.bytes < STILL_BYTES !== wasStill)) return true;
    await new Promise((r) => setImmediate(r));
  }
  return false;
}

async function viaPortal(pageUrl: string) {
  const app = await startApp(3590, { BROWSER_POOL_SIZE: '1' });
  try {
    const { cookie, teamId } = await signedInUser(app.portalUrl);
    const headers = { cookie, origin: app.portalUrl, 'content-type': 'application/json' };
    const key = await fetch(`${app.portalUrl}/api/teams/${teamId}/keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ mode: 'create', name: 'bench' }),
    });
    if (!key.ok) throw new Error(`key: ${key.status} ${await key.text()}`);
    const started = await fetch(`${app.portalUrl}/api/teams/${teamId}/browsers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench' }),
    });
    if (!started.ok) throw new Error(`start: ${started.status} ${await started.text()}`);
    const { browser } = (await started.json()) as { browser: { id: string } };
    const url = `${app.portalUrl.replace('http', 'ws')}/live/${browser.id}`;
    const main = portalViewer(url, { cookie, origin: app.portalUrl });
    await main.opened;
    main.send({ type: 'navigate', url: pageUrl });
    await sleep(3000);

    const from = main.frames.length;
    const cpu0 = cpuSeconds(app.portal.pid!);
    const serviceCpu0 = cpuSeconds(app.service.pid!);
    await sleep(SECONDS * 1000);
    const oneViewerCpu = cpuSeconds(app.portal.pid!) - cpu0;
    const serviceCpu = cpuSeconds(app.service.pid!) - serviceCpu0;
    const window = main.frames.slice(from);
    const fps = window.length / SECONDS;
    const added = window.map((f) => f.at - f.meta.relayedAt);

    const extras = Array.from({ length: EXTRA_VIEWERS }, () => portalViewer(url, { cookie, origin: app.portalUrl }));
    await Promise.all(extras.map((e) => e.opened));
    await sleep(1000);
    const cpu1 = cpuSeconds(app.portal.pid!);
    const fromMany = main.frames.length;
    await sleep(SECONDS * 1000);
    const manyCpu = cpuSeconds(app.portal.pid!) - cpu1;
    const fpsWithExtras = (main.frames.length - fromMany) / SECONDS;
    for (const e of extras) e.ws.close();

    const clicks: number[] = [];
    for (let i = 0; i < CLICKS; i++) {
      await sleep(150);
      const mark = main.frames.length;
      const t0 = now();
      main.send({ type: 'mouse', action: 'down', x: 640, y: 360, button: 'left', buttons: 1, clickCount: 1 });
      main.send({ type: 'mouse', action: 'up', x: 640, y: 360, button: 'left', buttons: 0, clickCount: 1 });
      if (await waitForChange(main.frames, mark)) clicks.push(now() - t0);
    }
    main.ws.close();
    await fetch(`${app.portalUrl}/api/teams/${teamId}/browsers/${browser.id}`, {
      method: 'DELETE',
      headers: { cookie, origin: app.portalUrl },
    });
    return {
      fps,
      fpsWithExtras,
      added,
      clicks,
      cpuOneViewer: (oneViewerCpu / SECONDS) * 100,
      cpuService: (serviceCpu / SECONDS) * 100,
      cpuPerViewer: ((manyCpu - oneViewerCpu) / EXTRA_VIEWERS / SECONDS) * 100,
    };
  } finally {
    await app.stop();
  }
}

/** The frame's size and the ack id from a raw Page.screencastFrame message, scanned rather than parsed. */
function screencastFrame(message: Buffer): { base64Length: number; ackId: number } | null {
  if (!message.subarray(0, 64).toString('latin1').includes('"method":"Page.screencastFrame"')) return null;
  const open = message.indexOf(DATA_KEY);
  if (open < 0) return null;
  const start = open + DATA_KEY.length;
  const end = message.indexOf(0x22, start); // base64 holds no quote
  const ack = ACK_ID.exec(message.subarray(end).toString('latin1')) ?? ACK_ID.exec(message.subarray(0, open).toString('latin1'));
  return ack ? { base64Length: end - start, ackId: Number(ack[1]) } : null;
}
const DATA_KEY = Buffer.from('"data":"');
const ACK_ID = /"sessionId":(\d+)/;

/**
 * The screencast read straight off a raw Chromium's DevTools pipe, launched by the bench with the
 * service's own launcher in the same sandbox as the service behind the portal.
 */
async function direct(pageUrl: string) {
  const launcher = await DirectChromiums.create(['127.0.0.1/32']);
  let chromium: Chromium | null = null;
  try {
    chromium = await launcher.launch(DIRECT_MODE);
    const { mux } = chromium;
    const { targetInfos } = await mux.call<{ targetInfos: { targetId: string; type: string }[] }>('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page')!;
    const { sessionId } = await mux.call<{ sessionId: string }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
    const send = (method: string, params: Record<string, unknown> = {}) => mux.call(method, params, sessionId);
    const post = (method: string, params: Record<string, unknown>) => void send(method, params).catch(() => {});
    await send('Page.enable');
    await send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 720, deviceScaleFactor: 1, mobile: false });
    const frames: Seen[] = [];
    const stopListening = onSessionMessages(chromium, sessionId, (message) => {
      const f = screencastFrame(message);
      if (!f) return;
      frames.push({ meta: { seq: frames.length } as FrameMeta, at: now(), bytes: Math.floor((f.base64Length * 3) / 4) });
      post('Page.screencastFrameAck', { sessionId: f.ackId });
    });
    // As the portal does: the screencast runs first, and the navigation happens under it.
    await send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: 1280, maxHeight: 720, everyNthFrame: 1 });
    await send('Page.navigate', { url: pageUrl });
    await sleep(3000);
    const from = frames.length;
    await sleep(SECONDS * 1000);
    const fps = (frames.length - from) / SECONDS;
    const clicks: number[] = [];
    for (let i = 0; i < CLICKS; i++) {
      await sleep(150);
      const mark = frames.length;
      const t0 = now();
      post('Input.dispatchMouseEvent', { type: 'mousePressed', x: 640, y: 360, button: 'left', buttons: 1, clickCount: 1 });
      post('Input.dispatchMouseEvent', { type: 'mouseReleased', x: 640, y: 360, button: 'left', buttons: 0, clickCount: 1 });
      if (await waitForChange(frames, mark)) clicks.push(now() - t0);
    }
    stopListening();
    return { fps, clicks, version: chromium.version.Browser };
  } finally {
    await chromium?.close();
    await launcher.close();
  }
}

const pages = await startPageServer();
const pageUrl = `${pages.url}animated`;
const portal = await viaPortal(pageUrl);
const straight = await direct(pageUrl);
await pages.close();

printTable(`Live view (${straight.version}), animated page, ${SECONDS} s windows; straight = raw Chromium over its pipe (${DIRECT_MODE})`, [
  { measure: 'frames per second reaching a viewer through the portal', value: portal.fps, target: '' },
  { measure: 'frames per second straight from Chromium', value: straight.fps, target: '' },
  { measure: 'ratio portal / straight', value: portal.fps / straight.fps, target: '>= 0.95' },
  { measure: `frames per second to the first viewer with ${EXTRA_VIEWERS} more watching`, value: portal.fpsWithExtras, target: '' },
  { measure: 'time the relay adds per frame, p50 (ms)', value: percentile(portal.added, 0.5), target: '< 3' },
  { measure: 'time the relay adds per frame, p99 (ms)', value: percentile(portal.added, 0.99), target: '' },
  {
    measure: `click to visible change through the portal, p50 (ms; ${portal.clicks.length}/${CLICKS} seen)`,
    value: percentile(portal.clicks, 0.5),
    target: '',
  },
  {
    measure: `click to visible change straight, p50 (ms; ${straight.clicks.length}/${CLICKS} seen)`,
    value: percentile(straight.clicks, 0.5),
    target: '',
  },
  { measure: 'difference, p50 (ms)', value: percentile(portal.clicks, 0.5) - percentile(straight.clicks, 0.5), target: '< 10' },
  { measure: 'portal CPU with one viewer (% of a core)', value: portal.cpuOneViewer, target: '' },
  { measure: 'service CPU relaying the CDP connection (% of a core)', value: portal.cpuService, target: '' },
  { measure: 'portal CPU per extra viewer (% of a core)', value: portal.cpuPerViewer, target: '' },
]);
process.exit(0);
