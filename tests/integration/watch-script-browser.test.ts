import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { FrameSlot } from '#portal/live/frame-slot.ts';
import type { Viewer } from '#portal/live/live-browser.ts';
import { TeamBrowsers } from '#portal/live/team-browsers.ts';
import { holdBrowser, type HeldBrowser } from '#portal/service-client/browser.ts';
import type { ServerMessage } from '#portal/protocol/live.ts';
import { eventually } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * Watching a script's browser from the portal (issue #14, item 4): the portal attaches to a browser
 * that a script holds, through the service's public interface, shows it live, and lets go of it
 * without ending it or changing what the script set up.
 */
describe("watching a script's browser", () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let instances: TeamBrowsers;
  let token: string;
  let script: HeldBrowser;
  let cdp: RawCdp;
  let session: string;
  const log = pino({ level: 'silent' });
  const user = { userId: 'u1', name: 'Ann' };

  before(async () => {
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    token = service.createKey().token;
    instances = new TeamBrowsers({ serviceUrl: service.url, idleMs: 60_000, maxPerUser: 1, maxPerTeam: 1, log });
    // The script: its own /start, its own DevTools connection, a page of its own size.
    script = await holdBrowser(service.url, token);
    cdp = await RawCdp.connect(script.debuggerUrl, script.headers);
    const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page' && !t.url.startsWith('chrome://'))!.targetId;
    session = (await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page, flatten: true })).sessionId;
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: 800, height: 600, deviceScaleFactor: 1, mobile: false }, session);
    await cdp.send('Page.navigate', { url: `${pages.url}animated` }, session);
  });
  after(async () => {
    await instances.shutdown();
    await cdp?.close();
    script?.release();
    await pages.close();
    await service.stop();
  });

  const width = async () =>
    (await cdp.send<{ result: { value: number } }>('Runtime.evaluate', { expression: 'innerWidth', returnByValue: true }, session)).result
      .value;

  function viewer(): Viewer & { messages: ServerMessage[]; frames: FrameSlot & { count: number } } {
    const messages: ServerMessage[] = [];
    const frames = { count: 0, offer: () => frames.count++, close: () => {} } as unknown as FrameSlot & { count: number };
    return { id: 'v1', name: 'Ann', userId: 'u1', send: (m) => messages.push(m), frames, messages };
  }

  it('shows it live, once for every viewer, without touching its size, and does not count it against the limits', async () => {
    const input = { teamId: 't1', user, keyId: 'k1', keyName: 'ci', apiKey: token, browserId: script.id, name: 'Nightly run' };
    const watched = await instances.attach(input);
    assert.ok(watched);
    assert.equal(watched.attached, true);
    assert.equal(await instances.attach(input), watched, 'attaching again gives the same one');
    const v = viewer();
    watched.live.addViewer(v, { takeControl: true });
    await eventually(
      () => v.frames.count,
      (n) => n > 3,
      10_000,
    );
    assert.equal(await width(), 800, "the script's own viewport stays");
    assert.equal(instances.countForTeam('t1'), 0);
    assert.equal(instances.countForUser('u1'), 0);
    // Its limits are for browsers the portal runs; watching used none of them.
    const own = await instances.start({ teamId: 't1', user, keyId: 'k1', keyName: 'ci', apiKey: token });
    instances.stop(own.id);
    watched.live.removeViewer(v.id);
  });

  it('lets go of it without ending it: the script goes on', async () => {
    const watched = instances.listForTeam('t1').find((i) => i.attached)!;
    const ended = new Promise((resolve) => instances.once('ended', resolve));
    instances.stop(watched.id);
    assert.deepEqual(await ended.then((e) => [(e as { attached: boolean }).attached, (e as { reason: string }).reason]), [true, 'stopped']);
    assert.equal(await width(), 800, 'the script still drives its page');
    const listed = (await (
      await fetch(`${service.url}/v0/browsers?status=live`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      browsers: { id: string }[];
    };
    assert.ok(
      listed.browsers.some((b) => b.id === script.id),
      'and its browser still runs',
    );
  });

  it('finds nothing for a browser that is not live, or not the key’s', async () => {
    assert.equal(
      await instances.attach({
        teamId: 't1',
        user,
        keyId: 'k1',
        keyName: 'ci',
        apiKey: token,
        browserId: `br_${'A'.repeat(32)}`,
        name: 'x',
      }),
      null,
    );
    const other = service.createKey().token;
    assert.equal(
      await instances.attach({ teamId: 't1', user, keyId: 'k2', keyName: 'x', apiKey: other, browserId: script.id, name: 'x' }),
      null,
    );
  });

  it('ends the view when the script lets its browser go', async () => {
    const watched = (await instances.attach({
      teamId: 't1',
      user,
      keyId: 'k1',
      keyName: 'ci',
      apiKey: token,
      browserId: script.id,
      name: 'n',
    }))!;
    const v = viewer();
    watched.live.addViewer(v, { takeControl: false });
    await cdp.close();
    script.release();
    await eventually(() => v.messages.some((m) => m.type === 'ended'), Boolean, 15_000);
    assert.equal(instances.get(watched.id), undefined);
  });
});
