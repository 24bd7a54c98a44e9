import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { holdBrowser } from '#portal/service-client/browser.ts';
import { SINGLE_NODE } from '#service/browser/history.ts';
import { SqliteBrowserHistory } from '#service/browser/history-sqlite.ts';
import { RecordingWriter } from '#service/browser/recording/writer.ts';
import { RawCdp } from '../tests/helpers/cdp.ts';
import { startPageServer } from '../tests/helpers/pages.ts';
import { startService, type ServiceProcess } from '../tests/helpers/service.ts';
import { cpuSeconds } from './_portal.ts';
import { printTable, type Row } from './_stats.ts';

/**
 * What recording a session costs (decision 0070), side by side in one run on one service: a viewer
 * screencasting an animated page (as the portal's live view does) with the key's recording off and
 * on, its frames per second and the service's CPU; what a minute of recording takes on disk for an
 * animated and a still page; and how long a recording takes to give its events and first frame,
 * short ones and a ten-minute one (the inspector's target: under a second to the first frame).
 */
const SECONDS = 10;
const ROUNDS = 3;

type Event = { type: string; offset?: number; length?: number };

type Sample = Awaited<ReturnType<typeof session>>;
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

/**
 * A ten-minute session, written as the recorder writes one (2 frames a second of the animated
 * page's last frame, ten requests and a console line a second), under a browser id of the key, then
 * opened the way the inspector opens it: all its events, then its first frame.
 */
async function tenMinutes(service: ServiceProcess, token: string, sampleId: string): Promise<Row> {
  const headers = { authorization: `Bearer ${token}` };
  const sample = (await (await fetch(`${service.url}/v0/browsers/${sampleId}/recording`, { headers })).json()) as { events: Event[] };
  const last = sample.events.filter((e) => e.type === 'frame').at(-1)!;
  const jpeg = Buffer.from(
    await (
      await fetch(`${service.url}/v0/browsers/${sampleId}/recording/screen`, {
        headers: { ...headers, range: `bytes=${last.offset}-${last.offset! + last.length! - 1}` },
      })
    ).arrayBuffer(),
  );
  const id = `br_${'b'.repeat(22)}tenminutes`;
  const startedAt = Date.now() - 600_000;
  const db = new DatabaseSync(join(service.dataDir, 'service.db'));
  db.exec('PRAGMA busy_timeout = 5000');
  await new SqliteBrowserHistory(db, { retentionMs: 3_600_000, recordingRetentionMs: 3_600_000, maxEndedPerKey: 100 }).started({
    id,
    keyId: token.split('_')[1]!,
    nodeId: SINGLE_NODE,
    at: startedAt,
    recorded: true,
  });
  db.prepare('UPDATE browsers SET ended_at = ?, end_reason = ? WHERE id = ?').run(Date.now(), 'client-closed', id);
  db.close();
  const writer = await RecordingWriter.open(join(service.dataDir, 'recordings', id), 1e12, startedAt);
  // The writer stamps each event with the moment it is written, so these all share one `t`: what is
  // measured here is reading a recording of this size, not its spread in time.
  for (let ms = 0; ms < 600_000; ms += 100) {
    writer.event('request', { method: 'GET', url: `https://example.test/item/${ms}`, status: 200, size: 1200, start: ms, ms: 20 });
    if (ms % 500 === 0) writer.frame(jpeg, { tab: 't', width: 1280, height: 720 });
    if (ms % 1000 === 0) writer.event('console', { level: 'log', text: `tick ${ms}` });
  }
  await writer.close();
  const t0 = performance.now();
  const rec = (await (await fetch(`${service.url}/v0/browsers/${id}/recording`, { headers })).json()) as {
    events: Event[];
    screenBytes: number;
  };
  const tEvents = performance.now() - t0;
  const first = rec.events.find((e) => e.type === 'frame')!;
  await (
    await fetch(`${service.url}/v0/browsers/${id}/recording/screen`, {
      headers: { ...headers, range: `bytes=${first.offset}-${first.offset! + first.length! - 1}` },
    })
  ).arrayBuffer();
  const tFirst = performance.now() - t0;
  return {
    page: '10 min, written',
    events: rec.events.length,
    frames: rec.events.filter((e) => e.type === 'frame').length,
    'MB per minute': (rec.screenBytes + JSON.stringify(rec.events).length) / 10 / 1e6,
    'events ms': tEvents,
    'first frame ms': tFirst,
  };
}

async function main(): Promise<void> {
  const pages = await startPageServer();
  const service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32', BROWSER_POOL_SIZE: '1' });
  try {
    const plain = service.createKey({ name: 'plain' }).token;
    const recorded = service.keysCli(['create', '--name', 'recorded', '--record']).stdout.trim().split('\n').pop()!;
    const animated = `${pages.url}animated`;
    // Under a CPU second a sample: alternate off and on, ROUNDS times, and compare the medians.
    const offs: Sample[] = [];
    const ons: Sample[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      offs.push(await session(service, plain, animated));
      ons.push(await session(service, recorded, animated));
    }
    const median = (xs: Sample[]) => ({
      fps: [...xs.map((x) => x.fps)].sort((a, b) => a - b)[xs.length >> 1]!,
      cpu: [...xs.map((x) => x.cpu)].sort((a, b) => a - b)[xs.length >> 1]!,
    });
    const [off, on] = [median(offs), median(ons)];
    printTable(
      `A viewer's screencast of an animated page, ${ROUNDS} rounds of ${SECONDS} s each way, medians (service CPU includes its relay of the viewer's frames)`,
      [
        { recording: 'off', 'viewer fps': off.fps, 'service CPU s': off.cpu },
        { recording: 'on', 'viewer fps': on.fps, 'service CPU s': on.cpu },
        {
          recording: 'on vs off',
          'viewer fps': `${(((on.fps - off.fps) / off.fps) * 100).toFixed(1)} %`,
          'service CPU s': `${(((on.cpu - off.cpu) / off.cpu) * 100).toFixed(1)} %`,
        },
      ],
    );
    const still = await session(service, recorded, `${pages.url}?still`);
    const rows: Row[] = [];
    for (const [page, id] of [
      ['animated', ons.at(-1)!.id],
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
    rows.push(await tenMinutes(service, recorded, ons.at(-1)!.id));
    printTable(`What a recording holds (RECORDING_FPS 2), and how soon it opens`, rows);
  } finally {
    await service.stop();
    await pages.close();
  }
}

await main();
