import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { holdBrowser } from '#portal/service-client/browser.ts';
import { eventually } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

type Event = { seq: number; t: number; type: string; [field: string]: unknown };
type Recording = { id: string; live: boolean; endedAt: string | null; screenBytes: number; events: Event[] };

/** A recorded session end to end (docs/api.md, "Session recordings"): a script's doings, read back through the API. */
describe('session recordings', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let recorded: string;
  let plain: string;
  let other: string;
  let searched = '';

  const get = (token: string, path: string, headers: Record<string, string> = {}) =>
    fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const recording = async (token: string, id: string, after = 0) =>
    (await (await get(token, `/v0/browsers/${id}/recording?after=${after}`)).json()) as Recording;

  before(async () => {
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32', RECORDING_FPS: '5' });
    pages = await startPageServer();
    const made = service.keysCli(['create', '--name', 'recorded', '--record']);
    assert.equal(made.status, 0, made.stderr);
    assert.match(made.stdout, /recorded$/m);
    recorded = made.stdout.trim().split('\n').pop() as string;
    plain = service.createKey({ name: 'plain' }).token;
    other = service.createKey({ name: 'other' }).token;
  });
  after(async () => {
    await pages?.close();
    await service?.stop();
  });

  it("records what a script's browser did: navigations, a console error, a failed request, the screen, in order", async () => {
    const held = await holdBrowser(service.url, recorded);
    const cdp = await RawCdp.connect(held.debuggerUrl, held.headers);
    const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
    // The tab (full Chromium also lists pieces of its own UI as pages).
    const page = targetInfos.find((t) => t.type === 'page' && !t.url.startsWith('chrome://'))!.targetId;
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page, flatten: true });
    await cdp.send('Page.enable', {}, sessionId);
    for (const url of [`${pages.url}?one`, `${pages.url}?two`]) {
      await cdp.send('Page.navigate', { url }, sessionId);
      // Each page's screen is recorded once it has settled; wait for it, however slow the machine.
      await eventually(
        () => recording(recorded, held.id),
        (r) => {
          const opened = r.events.findLastIndex((e) => e.type === 'navigation' && e.url === url);
          return opened >= 0 && r.events.slice(opened).some((e) => e.type === 'frame');
        },
        10_000,
      );
    }
    // A download: it lands in the instance's own folder, wherever the client asks for it.
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp/anywhere' });
    await cdp.send('Page.navigate', { url: `${pages.url.replace(/\/$/, '')}/download` }, sessionId);
    await new Promise((r) => setTimeout(r, 400));
    const broken = `data:text/html,<title>Broken</title><script>console.error("boom", 42); fetch("http://127.0.0.1:1/nope").catch(() => {});</script>`;
    await cdp.send('Page.navigate', { url: broken }, sessionId);

    const live = await eventually(
      () => recording(recorded, held.id),
      (r) => r.events.some((e) => e.type === 'request' && e.failed && String(e.url).endsWith('/nope')),
      10_000,
    );
    assert.equal(live.live, true);
    await cdp.close();
    held.release();

    const done = await eventually(
      () => recording(recorded, held.id),
      // The recording's end and the history's (endedAt) are written side by side as the browser ends: both are waited for.
      (r) => !r.live && r.events.some((e) => e.type === 'end') && r.endedAt != null,
      10_000,
    );
    const { events } = done;
    if (process.env.DEBUG_RECORDING)
      console.log(
        JSON.stringify(
          events.filter((e) => e.type !== 'frame'),
          null,
          1,
        ),
      );
    assert.ok(done.endedAt);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
      'every event once, in order',
    );
    assert.ok(
      events.every((e, i) => i === 0 || e.t >= events[i - 1]!.t),
      'times only go forward',
    );
    assert.equal(events[0]?.type, 'start');
    const navigations = events.filter((e) => e.type === 'navigation' && !e.sameDocument).map((e) => e.url);
    assert.deepEqual(navigations.slice(-3), [`${pages.url}?one`, `${pages.url}?two`, broken]);
    const error = events.find((e) => e.type === 'console' && e.level === 'error');
    assert.equal(error?.text, 'boom 42');
    const failed = events.find((e) => e.type === 'request' && e.failed && !e.canceled);
    assert.equal(failed?.url, 'http://127.0.0.1:1/nope');
    // The page's request for the download is cut off when it becomes one: canceled, not failed.
    const handedOver = events.find((e) => e.type === 'request' && String(e.url).endsWith('/download'));
    assert.deepEqual([handedOver?.failed, handedOver?.canceled], ['net::ERR_ABORTED', true], JSON.stringify(handedOver));
    assert.equal(failed?.failed, 'net::ERR_UNSAFE_PORT');
    const download = events.find((e) => e.type === 'download');
    assert.equal(download?.size, 'downloaded content'.length, JSON.stringify(download));
    assert.match(String(download?.name), /\S/);
    const loaded = events.find((e) => e.type === 'request' && e.url === `${pages.url}?two`);
    assert.equal(loaded?.status, 200);
    assert.equal(loaded?.method, 'GET');
    assert.ok(typeof loaded?.size === 'number' && (loaded.size as number) > 0);
    const at = (e: Event | undefined) => events.indexOf(e!);
    assert.ok(at(error) > at(events.find((e) => e.url === broken && e.type === 'navigation')), 'the error comes after its page opened');

    // The screen: JPEG frames, each readable on its own with a byte range.
    const frames = events.filter((e) => e.type === 'frame');
    assert.ok(frames.length >= 2, `frames: ${frames.length}`);
    const last = frames.at(-1)!;
    assert.equal(Number(last.offset) + Number(last.length), done.screenBytes);
    const res = await get(recorded, `/v0/browsers/${held.id}/recording/screen`, {
      range: `bytes=${last.offset}-${Number(last.offset) + Number(last.length) - 1}`,
    });
    assert.equal(res.status, 206);
    const jpeg = Buffer.from(await res.arrayBuffer());
    assert.equal(jpeg.length, last.length);
    assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8], 'a JPEG begins');
    assert.deepEqual([...jpeg.subarray(-2)], [0xff, 0xd9], 'and ends');

    // Listed as recorded; nobody else gets any of it.
    const listed = ((await (await get(recorded, '/v0/browsers')).json()) as { browsers: { id: string; recorded: boolean }[] }).browsers;
    assert.equal(listed.find((b) => b.id === held.id)?.recorded, true);
    for (const path of [`/v0/browsers/${held.id}/recording`, `/v0/browsers/${held.id}/recording/screen`]) {
      assert.equal((await get(other, path)).status, 404, path);
      assert.equal((await fetch(`${service.url}${path}`)).status, 401, path);
    }
    assert.equal((await get(recorded, `/v0/browsers/${held.id}/recording/screen`, { range: `bytes=0-${done.screenBytes}` })).status, 416);
    assert.equal((await get(recorded, `/v0/browsers/${held.id}/recording/screen`, { range: 'bytes=-5' })).status, 400);
    assert.equal((await get(recorded, `/v0/browsers/${held.id}/recording?after=x`)).status, 400);
    const later = await recording(recorded, held.id, events.at(-2)!.seq);
    assert.deepEqual(later.events, events.slice(-1), 'after=SEQ gives only what follows');
    searched = held.id;
  });

  it('finds events across the key’s recordings: failed requests, a status class, a host, words, a window', async () => {
    assert.ok(searched, 'the recorded session of the test above');
    type Found = { matches: { browser: string; at: string; event: Event }[]; sessions: number; truncated: boolean };
    const find = async (query: string, token = recorded) => {
      const res = await get(token, `/v0/recordings/events?${query}`);
      assert.equal(res.status, 200, `${query}: ${res.status}`);
      return (await res.json()) as Found;
    };
    const failed = await find('status=failed');
    assert.deepEqual(
      failed.matches.map((m) => [m.browser, m.event.url]),
      [[searched, 'http://127.0.0.1:1/nope']],
    );
    assert.equal(failed.sessions, 1);
    const ok = await find(`status=2xx&host=127.0.0.1&type=request`);
    assert.ok(ok.matches.some((m) => m.event.url === `${pages.url}?two`));
    assert.ok(ok.matches.every((m) => m.event.status === 200));
    assert.deepEqual(
      (await find('q=BOOM')).matches.map((m) => m.event.type).sort(),
      ['console', 'navigation'],
      'words, in any case: the message, and the data: address whose script says it',
    );
    const pagesOpened = (await find('type=navigation')).matches.map((m) => m.event.url);
    assert.ok(pagesOpened.includes(`${pages.url}?one`) && pagesOpened.includes(`${pages.url}?two`));
    const times = (await find('type=navigation')).matches.map((m) => Date.parse(m.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
    assert.equal((await find('status=5xx')).matches.length, 0);
    assert.equal((await find('host=example.com')).matches.length, 0);
    assert.equal((await find('until=2020-01-01T00:00:00Z')).matches.length, 0, 'a window before the session');
    const one = await find('type=navigation&limit=1');
    assert.equal(one.matches.length, 1);
    assert.equal(one.truncated, true);
    // Another key's search sees nothing of it; bad queries are refused, each parameter named.
    assert.equal((await find('status=failed', other)).matches.length, 0);
    assert.equal((await fetch(`${service.url}/v0/recordings/events`)).status, 401);
    for (const [query, field] of [
      ['status=600', 'status'],
      ['type=navigation,frames', 'type'],
      ['since=yesterday', 'since'],
      ['limit=0', 'limit'],
      ['limit=9999', 'limit'],
      ['host=exa mple.com', 'host'],
      ['colour=red', 'colour'],
      ['q=a&q=b', 'q'],
      ['since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
    ]) {
      const res = await get(recorded, `/v0/recordings/events?${query}`);
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { code: string; issues: { field: string }[] };
      assert.equal(body.code, 'invalid', query);
      assert.ok(
        body.issues.some((i) => i.field === field),
        `${query}: ${JSON.stringify(body.issues)}`,
      );
    }
  });

  it('keeps the screen a page settles on, though it asks Chromium for only some of a fast page’s frames', async () => {
    const held = await holdBrowser(service.url, recorded);
    const cdp = await RawCdp.connect(held.debuggerUrl, held.headers);
    const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page' && !t.url.startsWith('chrome://'))!.targetId;
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page, flatten: true });
    // Forty quick changes, then one last, then nothing: the last may fall between the frames asked for.
    const busy = `data:text/html,<body style="font-size:80px"><script>let n = 0; const t = setInterval(() => {
      document.body.textContent = 'step ' + ++n; document.body.style.background = n % 2 ? '%23fdd' : '%23dfd';
      if (n === 40) { clearInterval(t); document.body.textContent = 'settled'; document.body.style.background = '%23ddf'; console.log('settled'); }
    }, 16);</script>`;
    await cdp.send('Page.navigate', { url: busy }, sessionId);
    const events = (
      await eventually(
        () => recording(recorded, held.id),
        (r) => {
          const settled = r.events.find((e) => e.type === 'console' && e.text === 'settled');
          return Boolean(settled) && r.events.some((e) => e.type === 'frame' && e.t > settled!.t);
        },
        10_000,
      )
    ).events;
    await cdp.close();
    held.release();
    const settled = events.find((e) => e.type === 'console' && e.text === 'settled')!;
    const frames = events.filter((e) => e.type === 'frame');
    assert.ok(frames.at(-1)!.t > settled.t, 'a frame of the settled page is kept');
    assert.ok(frames.length < 40, `sampled, not every change: ${frames.length} frames`);
  });

  it("records a new tab's first page, whether window.open or a target=_blank link opened it", async () => {
    const held = await holdBrowser(service.url, recorded);
    const cdp = await RawCdp.connect(held.debuggerUrl, held.headers);
    const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page' && !t.url.startsWith('chrome://'))!.targetId;
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page, flatten: true });
    await cdp.send('Page.enable', {}, sessionId);
    await cdp.send('Page.navigate', { url: `${pages.url}?opener` }, sessionId);
    const openers = {
      'window.open': (url: string) => `window.open(${JSON.stringify(url)})`,
      'a target=_blank link': (url: string) =>
        `{ const a = document.createElement('a'); a.href = ${JSON.stringify(url)}; a.target = '_blank'; a.textContent = 'new tab'; document.body.append(a); a.click(); }`,
    };
    for (const [how, open] of Object.entries(openers)) {
      const url = `${pages.url}?opened-by-${how.replaceAll(/\W+/g, '-')}`;
      await cdp.send('Runtime.evaluate', { expression: open(url), userGesture: true }, sessionId);
      const r = await eventually(
        () => recording(recorded, held.id),
        (r) => r.events.some((e) => e.type === 'navigation' && e.url === url),
        10_000,
      );
      const navigation = r.events.find((e) => e.type === 'navigation' && e.url === url);
      assert.ok(navigation, `${how}: the new tab's first page is recorded`);
      assert.notEqual(navigation.tab, page, `${how}: in the new tab`);
      const opened = r.events.find((e) => e.type === 'tab' && e.action === 'opened' && e.tab === navigation.tab);
      assert.ok(opened && r.events.indexOf(opened) < r.events.indexOf(navigation), `${how}: the tab opened before its page`);
    }
    await cdp.close();
    held.release();
    await held.ended;
  });

  it('records a page that did not load as a navigation to the address asked for, with the net error and, for egress, why', async () => {
    // A loopback port where nothing listens (the tests' egress allows loopback): the egress proxy
    // cannot connect it. A private address, which egress refuses. A port Chromium itself will not use.
    // The egress proxy's refusal of a plain-http address, which Chromium shows as a page.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failing = [
      { url: `https://127.0.0.1:${port}/nothing`, failed: 'net::ERR_TUNNEL_CONNECTION_FAILED', reason: /127\.0\.0\.1.*did not answer/ },
      { url: 'https://10.255.255.1/private', failed: 'net::ERR_TUNNEL_CONNECTION_FAILED', reason: /refused by the egress policy/ },
      { url: 'http://127.0.0.1:1/unsafe', failed: 'net::ERR_UNSAFE_PORT', reason: undefined },
      // Over plain http, the egress proxy answers in the site's place with a page that says why.
      { url: 'http://10.255.255.1/private', failed: 'egress: denied-address', reason: /refused by the egress policy \(.*10\.255\.255\.1/ },
    ];
    const held = await holdBrowser(service.url, recorded);
    const cdp = await RawCdp.connect(held.debuggerUrl, held.headers);
    const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page' && !t.url.startsWith('chrome://'))!.targetId;
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page, flatten: true });
    await cdp.send('Page.enable', {}, sessionId);
    for (const { url, failed, reason } of failing) {
      const answer = await cdp.send<{ errorText?: string }>('Page.navigate', { url }, sessionId);
      // The test could see the defect: Chromium shows its error page (or the proxy's) in the address's place.
      assert.equal(answer.errorText, failed.startsWith('net::') ? failed : undefined, url);
      const r = await eventually(
        () => recording(recorded, held.id),
        (r) => r.events.some((e) => e.type === 'navigation' && e.url === url),
        10_000,
      );
      const navigation = r.events.find((e) => e.type === 'navigation' && e.url === url)!;
      assert.equal(navigation.tab, page);
      assert.equal(navigation.failed, failed, url);
      if (reason) assert.match(String(navigation.reason), reason, url);
      else assert.equal(navigation.reason, undefined, url);
    }
    await cdp.close();
    held.release();
    await held.ended;
    const done = await eventually(
      () => recording(recorded, held.id),
      (r) => !r.live,
      10_000,
    );
    assert.deepEqual(
      done.events.filter((e) => e.type === 'navigation' && String(e.url).startsWith('chrome-error:')),
      [],
      "Chromium's error page is not recorded as a page of its own",
    );
  });

  it("sends a client of a recorded browser no answer to a command it did not send (the recorder's are its own)", async () => {
    const held = await holdBrowser(service.url, recorded);
    const { default: WebSocket } = await import('ws');
    const socket = new WebSocket(held.debuggerUrl, { headers: held.headers });
    const heard: { id?: number; method?: string }[] = [];
    socket.on('message', (data) => heard.push(JSON.parse(data.toString()) as { id?: number; method?: string }));
    await new Promise((resolve) => socket.once('open', resolve));
    // One command of its own, answered after anything the service's recorder set off at connect.
    socket.send(JSON.stringify({ id: 7, method: 'Target.getTargets' }));
    await eventually(
      () => heard,
      (h) => h.some((m) => m.id === 7),
      10_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      heard.filter((m) => m.id !== undefined).map((m) => m.id),
      [7],
      JSON.stringify(heard.filter((m) => m.id !== 7)),
    );
    socket.close();
    held.release();
    await held.ended;
  });

  it('records nothing for a key that does not turn it on, and from its next browser once it does', async () => {
    const held = await holdBrowser(service.url, plain);
    held.release();
    await held.ended;
    assert.equal((await get(plain, `/v0/browsers/${held.id}/recording`)).status, 404);
    const listed = ((await (await get(plain, '/v0/browsers')).json()) as { browsers: { id: string; recorded: boolean }[] }).browsers;
    assert.equal(listed.find((b) => b.id === held.id)?.recorded, false);

    const keyId = plain.split('_')[1]!;
    assert.equal(service.keysCli(['record', keyId, 'on']).status, 0);
    assert.match(service.keysCli(['list']).stdout, new RegExp(`${keyId}\\t.*\\ton\\t`));
    const next = await holdBrowser(service.url, plain);
    next.release();
    await next.ended;
    assert.equal((await get(plain, `/v0/browsers/${next.id}/recording`)).status, 200);
    assert.equal(service.keysCli(['record', keyId, 'off']).status, 0);
    assert.equal(service.keysCli(['record', keyId, 'maybe']).status, 2, 'on or off only');
    assert.equal(service.keysCli(['record', 'nosuchkey00000000', 'on']).status, 2);
  });
});
