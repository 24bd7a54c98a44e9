import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { Chromium } from '../chromium.ts';
import { readEvents } from './reader.ts';
import { Recorder } from './recorder.ts';
import { RecordingWriter } from './writer.ts';

type Params = Record<string, unknown>;

/**
 * A browser as the recorder sees it: its DevTools events are the test's to send, and it answers
 * a screenshot with a few bytes of its own.
 */
function fakeBrowser(tab: string) {
  const rootEvents = new EventEmitter<{ event: [string, Params] }>();
  const serviceEvents = new EventEmitter<{ event: [string, string, Params] }>();
  const tabs = Object.assign(new EventEmitter(), { currentId: tab });
  const calls: string[] = [];
  const mux = {
    rootEvents,
    serviceEvents,
    call: async (method: string): Promise<unknown> => {
      calls.push(method);
      if (method === 'Page.getLayoutMetrics') return { cssVisualViewport: { pageX: 0, pageY: 0, clientWidth: 1280, clientHeight: 800 } };
      if (method === 'Page.captureScreenshot') return { data: Buffer.from(`shot ${calls.length}`).toString('base64') };
      return {};
    },
  };
  const browser = { mux, tabs, egressFailure: () => undefined } as unknown as Chromium;
  return { browser, calls, root: (method: string, p: Params) => rootEvents.emit('event', method, p), page: serviceEvents };
}

describe('Recorder', () => {
  it('gives a failed page whose event waited for the egress proxy a frame at or after that event', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'periscope-recorder-')), 'br_x');
    const tab = 'T1';
    const session = 'S1';
    const url = 'https://10.255.255.1/private';
    // The proxy's explanation comes after the error page has settled and been captured: the
    // event is written later than every frame Chromium sends of that still page.
    const explainUnreachable = async (host: string) => {
      await sleep(700);
      return `refused by the egress policy: ${host} is private`;
    };
    const { browser, calls, root, page } = fakeBrowser(tab);
    const out = await RecordingWriter.open(dir, 1_000_000);
    const recorder = await Recorder.start(browser, out, { fps: 2, maxWidth: 640, maxHeight: 400, jpegQuality: 50, explainUnreachable });
    try {
      root('Target.attachedToTarget', { sessionId: session, targetInfo: { targetId: tab, type: 'page', url: 'about:blank' } });
      const event = (method: string, p: Params) => page.emit('event', session, method, p);
      event('Network.requestWillBeSent', { requestId: 'r1', type: 'Document', frameId: tab, request: { method: 'GET', url } });
      event('Network.loadingFailed', { requestId: 'r1', errorText: 'net::ERR_TUNNEL_CONNECTION_FAILED' });
      event('Page.frameNavigated', { frame: { id: tab, url: 'chrome-error://chromewebdata/', unreachableUrl: url } });
      // Long enough for the settled capture, the explanation and a capture after it.
      let events = await readEvents(dir);
      for (let waited = 0; waited < 5000; waited += 100) {
        events = await readEvents(dir);
        const failed = events.find((e) => e.type === 'navigation');
        if (failed && events.some((e) => e.type === 'frame' && e.t >= failed.t)) break;
        await sleep(100);
      }
      const failed = events.find((e) => e.type === 'navigation');
      assert.ok(failed, 'the failed page is recorded');
      assert.equal(failed.url, url);
      assert.equal(failed.failed, 'net::ERR_TUNNEL_CONNECTION_FAILED');
      assert.equal(failed.reason, 'refused by the egress policy: 10.255.255.1 is private');
      // The test could see the defect: the error page was captured before its event was written.
      const frames = events.filter((e) => e.type === 'frame');
      assert.ok(
        frames.some((e) => e.t < failed.t),
        `the error page was captured before the event: ${JSON.stringify(events.map((e) => [e.type, e.t]))}`,
      );
      assert.ok(
        frames.some((e) => e.t >= failed.t),
        `a frame at or after the failed page's event: ${JSON.stringify(events.map((e) => [e.type, e.t]))}`,
      );
      assert.ok(calls.includes('Page.startScreencast'), 'the tab in use is screencast');
    } finally {
      await recorder.stop();
      await out.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
