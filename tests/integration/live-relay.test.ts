import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { decodeFrame, type ServerMessage } from '#portal/protocol/live.ts';
import type { TeamBrowser, TeamBrowsers } from '#portal/live/team-browsers.ts';
import { eventually } from '../helpers/browser.ts';
import { LIVE_ORIGIN, serveLiveSockets, startTeamBrowser } from '../helpers/live-sockets.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * The portal's live socket over a real instance, with a slow viewer: the relay holds at most one
 * frame in flight and one waiting per viewer, so a viewer that stops reading costs a bounded amount
 * of memory and takes nothing from the others.
 */
describe('live relay with a slow viewer', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let instances: TeamBrowsers;
  let instance: TeamBrowser;
  let server: Awaited<ReturnType<typeof serveLiveSockets>>;
  let url: string;

  before(async () => {
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    ({ instances, instance } = await startTeamBrowser(service, { teamId: 't', user: { userId: 'u', name: 'U' } }));
    server = await serveLiveSockets(instances, {
      authenticate: async (req) => (req.headers.cookie === 'session=ok' ? { userId: 'u', name: 'U', sessionVersion: 0 } : null),
      recheck: async (_user, teamId) => (teamId === 't' ? 'ok' : 'not-member'),
      // A stalled viewer answers no ping: on a loaded machine the heartbeat would drop it before
      // the frames this suite counts have gone by. Dropping it is the heartbeat's test, not these.
      pingMs: 10 * 60_000,
    });
    url = `${server.base}/live/${instance.id}`;
  });
  after(async () => {
    await instances.shutdown();
    server.close();
    await pages.close();
    await service.stop();
  });

  function viewer(opts: { read: boolean }) {
    const ws = new WebSocket(url, { headers: { cookie: 'session=ok', origin: LIVE_ORIGIN } });
    const seqs: number[] = [];
    const messages: ServerMessage[] = [];
    ws.on('message', (data, isBinary) => {
      if (isBinary) seqs.push(decodeFrame(new Uint8Array(data as Buffer)).meta.seq);
      else messages.push(JSON.parse(data.toString()) as ServerMessage);
    });
    const open = new Promise<void>((resolve, reject) => {
      ws.once('open', () => {
        ws.send(JSON.stringify({ type: 'hello', v: 1 }));
        // A viewer that stops reading: its socket is paused, so the kernel buffers fill and stay full.
        if (!opts.read) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
        resolve();
      });
      ws.once('error', reject);
    });
    return { ws, seqs, messages, open };
  }

  it('refuses a foreign origin, no session, and another team before the handshake', async () => {
    for (const headers of [{ cookie: 'session=ok', origin: 'http://evil.test' }, { origin: LIVE_ORIGIN }, { cookie: 'session=ok' }]) {
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => resolve(101));
        ws.once('error', () => {});
      });
      assert.ok([401, 403].includes(status), JSON.stringify(headers));
    }
  });

  it('keeps the slow viewer bounded while a fast viewer gets every frame', async () => {
    const fast = viewer({ read: true });
    await fast.open;
    // The controller points the page at an animation.
    await eventually(() => fast.messages.some((m) => m.type === 'state'), Boolean);
    fast.ws.send(JSON.stringify({ type: 'navigate', url: `${pages.url}animated` }));
    await eventually(
      () => fast.seqs.length,
      (n) => n > 20,
      10_000,
    );

    const slow = viewer({ read: false });
    await slow.open;
    const firstSeq = fast.seqs.at(-1) as number;
    // Let a few hundred frames go by with the slow viewer stalled.
    await eventually(
      () => (fast.seqs.at(-1) ?? 0) - firstSeq,
      (n) => n >= 600,
      60_000,
    );
    const window = fast.seqs.filter((s) => s > firstSeq);
    const produced = (fast.seqs.at(-1) as number) - firstSeq;
    assert.ok(window.length >= produced * 0.95, `the fast viewer got ${window.length} of ${produced} frames`);

    // The server side of the slow viewer: one frame in flight, at most one waiting, the rest dropped.
    const stats = instance.live.viewerStats();
    assert.equal(stats.length, 2);
    const frameBytes = instance.live.lastFrame!.bytes.byteLength;
    // The kernel's socket buffers take some frames before the stall shows; after that every frame but one is dropped.
    const stalled = stats.reduce((a, b) => (b.dropped > a.dropped ? b : a));
    assert.ok(stalled.dropped >= 100, `the stalled viewer's dropped frames: ${JSON.stringify(stats)}`);
    assert.ok(stalled.waitingBytes <= 2 * frameBytes, `waiting ${stalled.waitingBytes} bytes`);
    assert.ok((stalled.bufferedBytes ?? 0) <= 2 * frameBytes + 64 * 1024, `buffered ${stalled.bufferedBytes} bytes`);
    assert.ok(slow.seqs.length < 10, `the stalled viewer read ${slow.seqs.length} frames`);
    const quick = stats.find((s) => s !== stalled)!;
    assert.ok(quick.dropped <= quick.sent * 0.05, `the fast viewer dropped ${quick.dropped} of ${quick.sent}`);

    slow.ws.terminate();
    fast.ws.close();
  });
});
