import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { decodeFrame, type ClientMessage, type FrameMeta, type ServerMessage } from '#portal/protocol/live.ts';
import { FrameSlot } from '#portal/live/frame-slot.ts';
import { LiveBrowser, type Viewer } from '#portal/live/live-browser.ts';
import { holdBrowser } from '#portal/service-client/browser.ts';
import { judgeEgress } from '#portal/service-client/egress.ts';
import { eventually } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** A loopback port where nothing listens (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A viewer that keeps what it receives, like the page does. */
function testViewer(id: string, name = id) {
  const messages: ServerMessage[] = [];
  const frames: FrameMeta[] = [];
  const viewer: Viewer = {
    id,
    name,
    send: (m) => messages.push(m),
    frames: new FrameSlot({
      send(data, done) {
        frames.push(decodeFrame(data).meta);
        setImmediate(done);
      },
    }),
  };
  const last = <T extends ServerMessage['type']>(type: T) =>
    messages.filter((m) => m.type === type).at(-1) as Extract<ServerMessage, { type: T }> | undefined;
  return { viewer, messages, frames, last };
}

describe('LiveBrowser: the relay over a real instance', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let live: LiveBrowser;
  let probe: RawCdp;
  const a = testViewer('a', 'Ada');
  const b = testViewer('b', 'Bob');

  const send = (viewerId: string, msg: Record<string, unknown>) => live.handle(viewerId, msg as ClientMessage);
  /** Evaluate in the tab in front, through a second DevTools connection of the same instance. */
  async function evaluate(expression: string): Promise<unknown> {
    const tab = live.page;
    const { targetInfos } = await probe.send<{ targetInfos: { targetId: string; url: string; type: string }[] }>('Target.getTargets');
    const target = targetInfos.find((t) => t.type === 'page' && t.url === tab.url) ?? targetInfos.find((t) => t.type === 'page');
    const { sessionId } = await probe.send<{ sessionId: string }>('Target.attachToTarget', { targetId: target!.targetId, flatten: true });
    const r = await probe.send<{ result: { value: unknown } }>('Runtime.evaluate', { expression, returnByValue: true }, sessionId);
    await probe.send('Target.detachFromTarget', { sessionId });
    return r.result.value;
  }
  const click = async (viewerId: string, x: number, y: number) => {
    await send(viewerId, { type: 'mouse', action: 'move', x, y });
    await send(viewerId, { type: 'mouse', action: 'down', x, y, button: 'left', buttons: 1, clickCount: 1 });
    await send(viewerId, { type: 'mouse', action: 'up', x, y, button: 'left', buttons: 0, clickCount: 1 });
  };

  before(async () => {
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    const held = await holdBrowser(service.url, service.createKey().token);
    live = await LiveBrowser.open(held, { log: pino({ level: 'silent' }), judgeEgress: (host) => judgeEgress(service.url, held, host) });
    probe = await RawCdp.connect(held.debuggerUrl, held.headers);
  });
  after(async () => {
    await probe?.close();
    live?.stop();
    await pages?.close();
    await service?.stop();
  });

  it('gives the first viewer control and streams frames once someone watches', async () => {
    live.addViewer(a.viewer);
    assert.equal(live.control.controllerId, 'a');
    await send('a', { type: 'navigate', url: `${pages.url}live` });
    assert.equal(
      await eventually(
        () => live.page.title,
        (t) => t === 'Live test page',
      ),
      'Live test page',
    );
    const frames = await eventually(
      () => a.frames.length,
      (n) => n > 0,
    );
    assert.ok(frames > 0, 'frames arrive');
    const meta = a.frames.at(-1)!;
    assert.deepEqual([meta.deviceWidth, meta.deviceHeight], [1280, 720]);
  });

  it('selects text as a local browser does: double-click a word, triple-click the line, drag across a word', async () => {
    const press = async (x: number, y: number, clickCount: number) => {
      await send('a', { type: 'mouse', action: 'down', x, y, button: 'left', buttons: 1, clickCount });
      await send('a', { type: 'mouse', action: 'up', x, y, button: 'left', buttons: 0, clickCount });
    };
    const selection = (want: string) =>
      eventually(
        () => evaluate('String(getSelection()).trim().replace(/\\s+/g, " ")'),
        (v) => v === want,
      );
    await send('a', { type: 'mouse', action: 'move', x: 245, y: 512 });
    await press(245, 512, 1);
    await press(245, 512, 2);
    assert.equal(await selection('bravo'), 'bravo');
    await press(245, 512, 3);
    assert.equal(await selection('alpha bravo charlie delta'), 'alpha bravo charlie delta');
    await press(700, 700, 1); // away first: a press on selected text would drag the text itself
    await send('a', { type: 'mouse', action: 'move', x: 341, y: 512 });
    await send('a', { type: 'mouse', action: 'down', x: 341, y: 512, button: 'left', buttons: 1, clickCount: 1 });
    for (let x = 350; x <= 455; x += 15) await send('a', { type: 'mouse', action: 'move', x, y: 512, button: 'left', buttons: 1 });
    await send('a', { type: 'mouse', action: 'up', x: 455, y: 512, button: 'left', buttons: 0, clickCount: 1 });
    assert.equal(await selection('charlie'), 'charlie');
    await press(700, 700, 1);
  });

  it('clicks, types, pastes and uses shortcuts in the remote page', async () => {
    await click('a', 150, 125);
    await click('a', 150, 125);
    assert.equal(
      await eventually(
        () => evaluate("document.getElementById('status').textContent"),
        (v) => v === 'clicked 2',
      ),
      'clicked 2',
    );
    await click('a', 200, 215);
    for (const ch of 'hello') {
      await send('a', { type: 'key', action: 'down', key: ch, code: `Key${ch.toUpperCase()}` });
      await send('a', { type: 'key', action: 'up', key: ch, code: `Key${ch.toUpperCase()}` });
    }
    await send('a', { type: 'text', text: ' pasted' });
    assert.equal(
      await eventually(
        () => evaluate("document.getElementById('field').value"),
        (v) => v === 'hello pasted',
      ),
      'hello pasted',
    );
    // Ctrl+A selects everything, then typing replaces it.
    await send('a', { type: 'key', action: 'down', key: 'Control', code: 'ControlLeft', modifiers: 2 });
    await send('a', { type: 'key', action: 'down', key: 'a', code: 'KeyA', modifiers: 2 });
    await send('a', { type: 'key', action: 'up', key: 'a', code: 'KeyA', modifiers: 2 });
    await send('a', { type: 'key', action: 'up', key: 'Control', code: 'ControlLeft' });
    // Key events reach the page through the browser's input router, a little after commands to the
    // page itself: ask again until the selection has landed.
    const copied = await eventually(
      async () => {
        await send('a', { type: 'copy' });
        return a.last('clipboard')?.text;
      },
      (t) => t === 'hello pasted',
    );
    assert.equal(copied, 'hello pasted', 'copy reads the remote selection');
    await send('a', { type: 'key', action: 'down', key: 'Z', code: 'KeyZ', modifiers: 8, text: 'Z' });
    await send('a', { type: 'key', action: 'up', key: 'Z', code: 'KeyZ', modifiers: 8 });
    assert.equal(
      await eventually(
        () => evaluate("document.getElementById('field').value"),
        (v) => v === 'Z',
      ),
      'Z',
    );
  });

  it('commits IME composition and takes touch input', async () => {
    await click('a', 200, 215);
    await send('a', { type: 'key', action: 'down', key: 'a', code: 'KeyA', modifiers: 2 });
    await send('a', { type: 'key', action: 'up', key: 'a', code: 'KeyA', modifiers: 2 });
    await send('a', { type: 'compose', text: 'にほ', selectionStart: 2, selectionEnd: 2 });
    assert.equal(
      await eventually(
        () => evaluate("document.getElementById('field').value"),
        (v) => v === 'にほ',
      ),
      'にほ',
      'the composition shows in the field',
    );
    await send('a', { type: 'text', text: '日本' });
    assert.equal(
      await eventually(
        () => evaluate("document.getElementById('field').value"),
        (v) => v === '日本',
      ),
      '日本',
      'committing replaces the composition',
    );
    await send('a', { type: 'touch', action: 'start', points: [{ id: 1, x: 640, y: 500 }] });
    await send('a', { type: 'touch', action: 'end', points: [{ id: 1, x: 640, y: 500 }] });
    assert.equal(
      await eventually(
        () => evaluate('document.title'),
        (v) => v === 'touched 1 at 640,500',
      ),
      'touched 1 at 640,500',
    );
  });

  it('scrolls with the wheel by pixel deltas', async () => {
    await send('a', { type: 'wheel', x: 600, y: 400, deltaX: 0, deltaY: 480 });
    assert.equal(
      await eventually(
        () => evaluate('scrollY'),
        (v) => v === 480,
      ),
      480,
    );
    await send('a', { type: 'wheel', x: 600, y: 400, deltaX: 0, deltaY: -480 });
    assert.equal(
      await eventually(
        () => evaluate('scrollY'),
        (v) => v === 0,
      ),
      0,
    );
  });

  it('shows a JavaScript dialog to the viewers and answers it', async () => {
    await click('a', 150, 325);
    const dialog = await eventually(
      () => a.last('dialog')?.dialog,
      (d) => Boolean(d),
    );
    assert.deepEqual(dialog, { dialogType: 'prompt', message: 'Your name?', defaultPrompt: 'nobody' });
    await send('a', { type: 'dialog', accept: true, promptText: 'Grace' });
    assert.equal(
      await eventually(
        () => evaluate("document.getElementById('status').textContent"),
        (v) => v === 'answer: Grace',
      ),
      'answer: Grace',
    );
    assert.equal(a.last('dialog')?.dialog, null);
  });

  it('opens, switches and closes tabs, and follows a page that opens one', async () => {
    const before = a.last('state')!.tabs.length;
    await click('a', 130, 410); // target=_blank link
    const opened = await eventually(
      () => a.last('state')?.tabs ?? [],
      (t) => t.length === before + 1 && t.some((x) => x.active && x.url.includes('from=popup')),
    );
    assert.ok(opened.find((t) => t.active)?.url.includes('from=popup'), 'the new tab comes to the front');
    const first = opened.find((t) => t.url.endsWith('/live'))!;
    await send('a', { type: 'tab', action: 'switch', tabId: first.id });
    assert.equal(live.page.url, first.url);
    await send('a', { type: 'tab', action: 'open', url: `${pages.url}?third` });
    const three = await eventually(
      () => a.last('state')?.tabs ?? [],
      (t) => t.length === before + 2,
    );
    const third = three.find((t) => t.active)!;
    await send('a', { type: 'tab', action: 'close', tabId: third.id });
    await eventually(
      () => a.last('state')?.tabs ?? [],
      (t) => t.length === before + 1 && !t.some((x) => x.id === third.id),
    );
    await send('a', { type: 'tab', action: 'switch', tabId: 'no-such-tab' });
    assert.equal(a.last('error')?.code, 'no-such-tab');
    await send('a', { type: 'tab', action: 'switch', tabId: first.id });
  });

  it('lists a tab it opens in front from the first state that lists it, so what the viewer types next goes there', async () => {
    const before = a.last('state')!.tabs;
    const from = a.messages.length;
    await send('a', { type: 'tab', action: 'open' });
    await eventually(
      () => a.last('state')?.tabs.length,
      (n) => n === before.length + 1,
    );
    const states = a.messages.slice(from).filter((m) => m.type === 'state');
    const listing = states.filter((m) => m.tabs.length > before.length);
    assert.ok(listing.length > 0, 'a state lists the new tab');
    for (const m of listing) {
      const fresh = m.tabs.find((t) => !before.some((b) => b.id === t.id));
      assert.equal(fresh?.active, true, `the new tab is in front in every state that lists it: ${JSON.stringify(m.tabs)}`);
    }
    await send('a', { type: 'tab', action: 'close', tabId: a.last('state')!.tabs.find((t) => t.active)!.id });
    await eventually(
      () => a.last('state')?.tabs.length,
      (n) => n === before.length,
    );
  });

  it('navigates a tab opened a moment before, even while it is still being attached', async () => {
    const before = a.last('state')!.tabs.length;
    await send('a', { type: 'tab', action: 'open' });
    // As the page's "New tab" then Enter in the address bar: the next message follows at once.
    const errors = () => a.messages.filter((m) => m.type === 'error').length;
    const errorsBefore = errors();
    await send('a', { type: 'navigate', url: `${pages.url}?fresh` });
    assert.match(
      await eventually(
        () => live.page.url,
        (u) => u.endsWith('?fresh'),
      ),
      /\?fresh$/,
    );
    assert.equal(errors(), errorsBefore, 'no "no page is open"');
    const tabs = a.last('state')!.tabs;
    await send('a', { type: 'tab', action: 'close', tabId: tabs.find((t) => t.active)!.id });
    await eventually(
      () => a.last('state')?.tabs.length,
      (n) => n === before,
    );
  });

  it('navigates back, forward and reloads; refuses non-web addresses', async () => {
    await send('a', { type: 'navigate', url: `${pages.url}?second` });
    await eventually(
      () => live.page.url,
      (u) => u.endsWith('?second'),
    );
    await send('a', { type: 'history', action: 'back' });
    await eventually(
      () => live.page.url,
      (u) => u.endsWith('/live'),
    );
    await send('a', { type: 'history', action: 'forward' });
    assert.match(
      await eventually(
        () => live.page.url,
        (u) => u.endsWith('?second'),
      ),
      /\?second$/,
    );
    await send('a', { type: 'history', action: 'reload' });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'chrome://version']) {
      await send('a', { type: 'navigate', url });
      const error = a.last('error');
      assert.equal(error?.code, 'address-refused', url);
      assert.match(error?.message ?? '', /cannot be opened here.*http and https addresses, data: and about:blank/, url);
    }
    assert.match(live.page.url, /\?second$/);
  });

  it('says in words why a page did not load, and what the operator could change', async () => {
    const problem = () => live.tabs.find((t) => t.active)?.problem ?? null;
    const problemAfter = async (url: string, code: string) => {
      await send('a', { type: 'navigate', url });
      return eventually(problem, (p) => p?.code === code);
    };
    // Plain http to a private address: the egress proxy answers in the site's place and says why.
    let p = await problemAfter('http://10.255.255.1:8080/', 'egress:denied-address');
    assert.equal(p?.title, 'Blocked: 10.255.255.1:8080 is a private or reserved address');
    assert.match(p?.detail ?? '', /10\.255\.255\.1 is in 10\.0\.0\.0\/8/);
    assert.match(p?.operator ?? '', /BROWSER_EGRESS_ALLOW/);
    assert.deepEqual(a.last('state')?.tabs.find((t) => t.active)?.problem, p, 'every viewer is told');

    // A page that loads clears it.
    await send('a', { type: 'navigate', url: `${pages.url}live` });
    await eventually(problem, (x) => x === null);

    // https to a private address: Chromium shows nothing of the proxy's answer; the service says the policy refused it.
    await problemAfter('https://10.255.255.1/', 'net::ERR_TUNNEL_CONNECTION_FAILED');
    p = await eventually(problem, (x) => /10\.0\.0\.0\/8/.test(x?.detail ?? ''));
    assert.match(p?.title ?? '', /^Blocked: 10\.255\.255\.1 /);
    assert.match(p?.detail ?? '', /10\.255\.255\.1 is in 10\.0\.0\.0\/8/);
    assert.match(p?.operator ?? '', /BROWSER_EGRESS_ALLOW=10\.0\.0\.0\/8/);
    await send('a', { type: 'navigate', url: `${pages.url}live` });
    await eventually(problem, (x) => x === null);

    // https to a name that does not resolve from the service's machine (as any public name here,
    // where there is no way out): the words point at the machine's network, not at BROWSER_EGRESS_ALLOW.
    const noRoute = /machine of the browser service cannot resolve names on the internet/;
    await problemAfter('https://nowhere.invalid/', 'net::ERR_TUNNEL_CONNECTION_FAILED');
    p = await eventually(problem, (x) => noRoute.test(x?.operator ?? ''));
    assert.equal(p?.title, 'nowhere.invalid was not found');
    assert.match(p?.operator ?? '', noRoute);
    assert.match(p?.operator ?? '', /BROWSER_EGRESS_ALLOW does not help here/);
    assert.doesNotMatch(p?.operator ?? '', /can allow/);

    // https to an address the policy lets through, where nothing listens: the network failed, not the policy.
    const closedTls = `https://127.0.0.1:${await closedPort()}/`;
    await problemAfter(closedTls, 'net::ERR_TUNNEL_CONNECTION_FAILED');
    p = await eventually(problem, (x) => x?.url === closedTls && /no route to the internet/.test(x.operator ?? ''));
    assert.match(p?.title ?? '', /^Could not connect to 127\.0\.0\.1:/);
    assert.match(p?.detail ?? '', /The egress policy lets the browser reach/);
    assert.doesNotMatch(p?.operator ?? '', /can allow/);

    // An allowed address where nothing listens, over http: the proxy says so itself.
    const closed = new URL(pages.url);
    closed.port = String(await closedPort());
    p = await problemAfter(closed.href, 'egress:unreachable');
    assert.equal(p?.title, `${closed.host} did not answer`);
    assert.match(p?.operator ?? '', /no route to the internet/);

    // A bare name is tried over https, then over http, where the proxy says it does not exist.
    p = await problemAfter('nowhere.invalid/page', 'egress:unresolved');
    assert.equal(p?.url, 'http://nowhere.invalid/page');
    assert.equal(p?.title, 'nowhere.invalid was not found');
    assert.match(p?.operator ?? '', noRoute);

    // data: addresses open, as they do when typed into a desktop browser.
    await send('a', { type: 'navigate', url: 'data:text/html,<title>Made of data</title>' });
    await eventually(
      () => live.page.title,
      (t) => t === 'Made of data',
    );
    assert.equal(problem(), null);

    // A local address without a scheme opens over http at once.
    await send('a', { type: 'navigate', url: `127.0.0.1:${new URL(pages.url).port}/live` });
    await eventually(
      () => live.page.url,
      (u) => u === `${pages.url}live`,
    );
    assert.equal(problem(), null);
  });

  it('gives a second viewer the last frame at once, view only, until control is handed over', async () => {
    live.addViewer(b.viewer);
    assert.ok(b.frames.length >= 1, 'a newcomer gets the last frame at once');
    assert.equal(live.control.controllerId, 'a');
    await send('b', { type: 'navigate', url: 'https://example.com' });
    assert.equal(b.last('error')?.code, 'not-in-control');
    await send('b', { type: 'control', action: 'request' });
    const asked = await eventually(
      () => a.last('state')?.viewers ?? [],
      (v) => v.some((x) => x.id === 'b' && 'requested' in x && (x as { requested: boolean }).requested),
    );
    assert.ok(asked.length === 2);
    await send('a', { type: 'control', action: 'grant', viewerId: 'b' });
    assert.equal(live.control.controllerId, 'b');
    assert.equal(
      await eventually(
        () => b.last('state')?.controllerId,
        (c) => c === 'b',
      ),
      'b',
    );
    await send('a', { type: 'mouse', action: 'down', x: 1, y: 1, button: 'left', buttons: 1, clickCount: 1 });
    assert.equal(a.last('error')?.code, 'not-in-control');
    live.removeViewer('b');
    assert.equal(live.control.controllerId, 'a', 'control returns to the one still watching');
  });

  it("follows the viewer's viewport size", async () => {
    await send('a', { type: 'viewport', mode: 'follow', width: 800, height: 600 });
    assert.deepEqual(
      await eventually(
        () => evaluate('[innerWidth, innerHeight]'),
        (v) => JSON.stringify(v) === '[800,600]',
      ),
      [800, 600],
    );
    const meta = await eventually(
      () => a.frames.at(-1),
      (m) => m?.deviceWidth === 800,
    );
    assert.equal(meta?.deviceHeight, 600);
  });

  it("emulates a phone for a phone's viewer: its viewport rules and a touch screen, until a fixed size is chosen", async () => {
    const device = () => evaluate("[innerWidth, navigator.maxTouchPoints > 0, matchMedia('(pointer: coarse)').matches]");
    assert.deepEqual(await device(), [800, false, false], 'a desktop viewport before');
    await send('a', { type: 'viewport', mode: 'follow', width: 390, height: 700, mobile: true });
    await eventually(device, (v) => JSON.stringify(v) === '[390,true,true]');
    assert.deepEqual(
      await eventually(
        () => a.last('state')?.viewport,
        (v) => v?.mobile === true,
      ),
      { mode: 'follow', width: 390, height: 700, mobile: true },
    );
    // A fixed size is a desktop's, whatever the message says.
    await send('a', { type: 'viewport', mode: 'fixed', width: 800, height: 600, mobile: true });
    assert.deepEqual(await eventually(device, (v) => JSON.stringify(v) === '[800,false,false]'), [800, false, false]);
    assert.equal(
      (
        await eventually(
          () => a.last('state')?.viewport,
          (v) => v?.mode === 'fixed',
        )
      )?.mobile,
      false,
    );
  });

  it('runs the screencast only while someone watches', async () => {
    live.removeViewer('a');
    // A frame Chromium sent before the screencast stopped may still arrive: wait until none has for a while.
    let seq = live.lastFrame!.meta.seq;
    for (let quiet = 0; quiet < 3;) {
      await new Promise((r) => setTimeout(r, 200));
      const now = live.lastFrame!.meta.seq;
      quiet = now === seq ? quiet + 1 : 0;
      seq = now;
    }
    // The page animates now, yet with nobody watching no frame is produced or relayed.
    await evaluate(
      "document.body.style.background = 'red'; setInterval(() => { document.title = 'tick ' + Date.now(); document.body.style.background = document.body.style.background === 'red' ? 'blue' : 'red'; }, 16); 1",
    );
    await eventually(
      () => live.page.title,
      (t) => t.startsWith('tick'),
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(live.lastFrame!.meta.seq, seq, 'no frame while nobody watches');
    live.addViewer(a.viewer);
    assert.ok(
      await eventually(
        () => live.lastFrame!.meta.seq,
        (s) => s > seq + 5,
      ),
      'frames again once someone watches',
    );
  });

  it('tells every viewer when the instance ends', async () => {
    const ended = new Promise((resolve) => live.once('ended', resolve));
    live.stop();
    assert.deepEqual(await ended, { reason: 'stopped', message: 'stopped' });
    assert.equal(a.last('ended')?.reason, 'stopped');
  });
});
