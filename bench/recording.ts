import { holdBrowser } from '#portal/service-client/browser.ts';
import { RawCdp } from '../tests/helpers/cdp.ts';
import { startPageServer } from '../tests/helpers/pages.ts';
import { startService, type ServiceProcess } from '../tests/helpers/service.ts';
import { cpuSeconds } from './_portal.ts';
import { printTable, type Row } from './_stats.ts';

/**
 * What recording a session costs (decision 0070), side by side in one run on one service: a viewer
 * screencasting an animated page (as the portal's live view does) with the key's recording off and
 * on, its frames per second and the service's CPU; what a minute of recording takes on disk for an
 * animated and a still page; and how long the recording takes to give its events and first frame.
 */
const SECONDS = 10;

type Event = { type: string; offset?: number; length?: number };

async function session(service: ServiceProcess, token: string, url: string) {
  const held = await holdBrowser(service.url, token);
  const cdp = await RawCdp.connect(held.debuggerUrl, held.headers);
  const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
  const tab = targetInfos.find((t) => t.type === 'page' && !t.url.startsWith('chrome://'))!;
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: tab.targetId, flatten: true });
  await cdp.send('Page.enable', {}, sessionId);
  await cdp.send('Page.navigate', { url }, sessionId);
  await new Promise((r) => setTimeout(r, 1000));
  // The viewer: a screencast like the live view's, every frame acknowledged at once.
  let frames = 0;
  cdp.socket.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { method?: string; params?: { sessionId: number } };
    if (m.method !== 'Page.screencastFrame') return;
    frames++;
    void cdp.send('Page.screencastFrameAck', { sessionId: m.params!.sessionId }, sessionId);
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: 1280, maxHeight: 720 }, sessionId);
  const cpu0 = cpuSeconds(service.child.pid!);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const cpu = cpuSeconds(service.child.pid!) - cpu0;
  const fps = frames / SECONDS;
  await cdp.close();
  held.release();
  await held.ended;
  return { id: held.id, fps, cpu };
}

async function main(): Promise<void> {
  const pages = await startPageServer();
  const service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32', BROWSER_POOL_SIZE: '1' });
  try {
    const plain = service.createKey({ name: 'plain' }).token;
    const recorded = service.keysCli(['create', '--name', 'recorded', '--record']).stdout.trim().split('\n').pop()!;
    const animated = `${pages.url}animated`;
    const off = await session(service, plain, animated);
    const on = await session(service, recorded, animated);
    printTable(`A viewer's screencast of an animated page for ${SECONDS} s (service CPU includes its relay of the viewer's frames)`, [
      { recording: 'off', 'viewer fps': off.fps, 'service CPU s': off.cpu },
      { recording: 'on', 'viewer fps': on.fps, 'service CPU s': on.cpu },
      {
        recording: 'on vs off',
        'viewer fps': `${(((on.fps - off.fps) / off.fps) * 100).toFixed(1)} %`,
        'service CPU s': `${(((on.cpu - off.cpu) / off.cpu) * 100).toFixed(1)} %`,
      },
    ]);
    const still = await session(service, recorded, `${pages.url}?still`);
    const rows: Row[] = [];
    for (const [page, id] of [
      ['animated', on.id],
      ['still', still.id],
    ] as const) {
      const headers = { authorization: `Bearer ${recorded}` };
      const t0 = performance.now();
      const rec = (await (await fetch(`${service.url}/v0/browsers/${id}/recording`, { headers })).json()) as {
        events: Event[];
        screenBytes: number;
      };
      const tEvents = performance.now() - t0;
      const first = rec.events.find((e) => e.type === 'frame');
      if (first)
        await (
          await fetch(`${service.url}/v0/browsers/${id}/recording/screen`, {
            headers: { ...headers, range: `bytes=${first.offset}-${first.offset! + first.length! - 1}` },
          })
        ).arrayBuffer();
      const tFirst = performance.now() - t0;
      const seconds = SECONDS + 1;
      const bytes = rec.screenBytes + JSON.stringify(rec.events).length;
      rows.push({
        page,
        events: rec.events.length,
        frames: rec.events.filter((e) => e.type === 'frame').length,
        'MB per minute': ((bytes / seconds) * 60) / 1e6,
        'events ms': tEvents,
        'first frame ms': tFirst,
      });
    }
    printTable(`What a recording holds (RECORDING_FPS 2), and how soon it opens`, rows);
  } finally {
    await service.stop();
    await pages.close();
  }
}

await main();
