import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { CdpPipe } from '#shared/cdp/pipe.ts';
import type { ClientMessage } from '../protocol/devtools.ts';
import { CdpError, CdpMux, tailSessionId, type MuxClient, type MuxTarget } from './cdp-mux.ts';

type Json = Record<string, unknown>;
type Command = { id: number; method: string; params?: Json; sessionId?: string };

/**
 * Chromium at the other end of a --remote-debugging-pipe, as far as the mux can tell: NUL-ended
 * JSON both ways, replies and events of a flattened session with `,"sessionId":"<id>"}` appended
 * last. attachToBrowserTarget and attachToTarget answer with new session ids; everything else is
 * echoed back (`result: { echo: method }`) unless a handler is set, or `manual` holds it back.
 */
class FakeChromium {
  readonly toBrowser = new PassThrough();
  readonly fromBrowser = new PassThrough();
  readonly pipe = new CdpPipe(this.toBrowser, this.fromBrowser);
  /** Every command received, in order. */
  readonly received: Command[] = [];
  /** Every raw text received. */
  readonly raw: string[] = [];
  readonly handlers = new Map<string, (c: Command) => Json | { error: Json } | null>();
  /** Methods not answered automatically (answer with reply()). */
  readonly manual = new Set<string>();
  #browserSessions = 0;
  #pageSessions = 0;
  #buffer = '';

  constructor() {
    this.toBrowser.on('data', (chunk: Buffer) => {
      this.#buffer += chunk.toString('utf8');
      let nul: number;
      while ((nul = this.#buffer.indexOf('\0')) >= 0) {
        const text = this.#buffer.slice(0, nul);
        this.#buffer = this.#buffer.slice(nul + 1);
        this.raw.push(text);
        const command = JSON.parse(text) as Command;
        this.received.push(command);
        this.#answer(command);
      }
    });
  }

  #answer(c: Command): void {
    if (this.manual.has(c.method)) return;
    const handler = this.handlers.get(c.method);
    if (handler) {
      const result = handler(c);
      if (result === null) return;
      if ('error' in result) this.write({ id: c.id, error: result.error }, c.sessionId);
      else this.reply(c, result);
      return;
    }
    if (c.method === 'Target.attachToBrowserTarget') return this.reply(c, { sessionId: `B${++this.#browserSessions}` });
    if (c.method === 'Target.attachToTarget') {
      const targetId = String(c.params?.targetId);
      if (targetId === 'gone')
        return this.write({ id: c.id, error: { code: -32602, message: 'No target with given id found' } }, c.sessionId);
      return this.reply(c, { sessionId: `P${++this.#pageSessions}` });
    }
    this.reply(c, { echo: c.method, ...(c.params ? { params: c.params } : {}) });
  }

  /** Answer a command on the session it came on. */
  reply(c: Command, result: Json): void {
    this.write({ id: c.id, result }, c.sessionId);
  }

  /** An event, on a session or on the pipe's root. */
  event(method: string, params: Json, sessionId?: string): void {
    this.write({ method, params }, sessionId);
  }

  /** Write a message as Chromium does: the session id appended as the last key. */
  write(message: Json, sessionId?: string): void {
    this.writeText(sessionId ? `${JSON.stringify(message).slice(0, -1)},"sessionId":"${sessionId}"}` : JSON.stringify(message));
  }

  writeText(text: string): void {
    this.fromBrowser.write(`${text}\0`);
  }

  last(method: string): Command | undefined {
    return this.received.filter((c) => c.method === method).at(-1);
  }

  /** A page target's session attached automatically under `parent` (Target.setAutoAttach, flatten). */
  autoAttach(parent: string, child: string, targetId = `T-${child}`): void {
    this.event(
      'Target.attachedToTarget',
      {
        sessionId: child,
        targetInfo: { targetId, type: 'page', title: '', url: 'about:blank', attached: true, canAccessOpener: false },
        waitingForDebugger: false,
      },
      parent,
    );
  }

  detached(parent: string | undefined, child: string): void {
    this.event('Target.detachedFromTarget', { sessionId: child, targetId: `T-${child}` }, parent);
  }
}

/** What a client's socket would receive. */
class Sink {
  readonly texts: string[] = [];
  ended: string | null = null;
  deliver(message: Buffer): void {
    this.texts.push(message.toString('utf8'));
  }
  end(reason: string): void {
    assert.equal(this.ended, null, 'end is called once');
    this.ended = reason;
  }
  get messages(): Json[] {
    return this.texts.map((t) => JSON.parse(t) as Json);
  }
  take(): Json[] {
    const m = this.messages;
    this.texts.length = 0;
    return m;
  }
}

async function setup() {
  const chromium = new FakeChromium();
  const mux = new CdpMux(chromium.pipe);
  const open = async (target: MuxTarget = { kind: 'browser' }) => {
    const sink = new Sink();
    const client = await mux.open(target, sink);
    return { client, sink };
  };
  return { chromium, mux, open };
}

/** Let the PassThrough streams and the mux move everything written so far. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await tick();
}

let ids = 100;
const cmd = (method: string, params?: Json, sessionId?: string): ClientMessage => ({
  id: ids++,
  method,
  ...(params ? { params } : {}),
  ...(sessionId ? { sessionId } : {}),
});

async function send(client: MuxClient, message: ClientMessage): Promise<void> {
  client.send(message);
  await settle();
}

describe('CdpMux: clients and their root sessions', () => {
  it('gives each client a browser session of its own', async () => {
    const { chromium, mux, open } = await setup();
    const a = await open();
    const b = await open();
    assert.equal(a.client.root, 'B1');
    assert.equal(b.client.root, 'B2');
    assert.equal(mux.clients, 2);
    const attaches = chromium.received.filter((c) => c.method === 'Target.attachToBrowserTarget');
    assert.equal(attaches.length, 2);
    for (const c of attaches) assert.equal(c.sessionId, undefined, "attached from the pipe's own root");
  });

  it('connects a page client with a flattened attach to its target', async () => {
    const { chromium, open } = await setup();
    const { client } = await open({ kind: 'page', targetId: 'T9' });
    assert.equal(client.root, 'P1');
    const attach = chromium.last('Target.attachToTarget');
    assert.deepEqual(attach?.params, { targetId: 'T9', flatten: true });
    assert.equal(attach?.sessionId, undefined);
  });

  it('rejects with CdpError when the target is gone', async () => {
    const { mux, open } = await setup();
    await assert.rejects(
      open({ kind: 'page', targetId: 'gone' }),
      (err: Error) => err instanceof CdpError && /No target with given id found/.test(err.message),
    );
    assert.equal(mux.clients, 0);
  });

  it("sends a client's messages without sessionId on its root session, and strips it from the replies", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const b = await open();
    const m = cmd('Target.getTargets');
    await send(a.client, m);
    const sent = chromium.last('Target.getTargets');
    assert.deepEqual(sent, { ...m, sessionId: 'B1' });
    assert.ok(chromium.raw.at(-1)?.endsWith(',"sessionId":"B1"}'));
    assert.deepEqual(a.sink.take(), [{ id: m.id, result: { echo: 'Target.getTargets' } }]);
    assert.doesNotMatch(a.sink.texts.join(''), /sessionId/);
    assert.deepEqual(b.sink.messages, [], 'the other client sees nothing');

    const n = cmd('Browser.getVersion', { x: 1 });
    await send(b.client, n);
    assert.equal(chromium.last('Browser.getVersion')?.sessionId, 'B2');
    const text = b.sink.texts.at(-1) ?? '';
    assert.doesNotMatch(text, /sessionId/);
    assert.deepEqual(JSON.parse(text), { id: n.id, result: { echo: 'Browser.getVersion', params: { x: 1 } } });
    assert.deepEqual(a.sink.messages, []);
  });

  it("delivers events of a client's root session without the session id, to that client only", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const b = await open();
    chromium.event('Target.targetCreated', { targetInfo: { targetId: 'T1', type: 'page' } }, 'B2');
    await settle();
    assert.deepEqual(a.sink.messages, []);
    assert.deepEqual(b.sink.take(), [{ method: 'Target.targetCreated', params: { targetInfo: { targetId: 'T1', type: 'page' } } }]);
  });

  it('strips the root session id even when Chromium did not write it last', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    chromium.writeText('{"id":5,"sessionId":"B1","result":{"a":1}}');
    await settle();
    assert.deepEqual(a.sink.take(), [{ id: 5, result: { a: 1 } }]);
  });

  it("drops messages of sessions nobody holds, and events of the pipe's root", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    chromium.event('Target.targetCreated', { targetInfo: { targetId: 'T1' } });
    chromium.event('Page.loadEventFired', { timestamp: 1 }, 'NOBODY');
    chromium.write({ id: 999, result: {} });
    chromium.writeText('not json at all');
    await settle();
    assert.deepEqual(a.sink.messages, []);
    assert.equal(a.sink.ended, null);
  });

  it('carries big messages through whole', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const big = 'y'.repeat(8 * 1024 * 1024);
    chromium.handlers.set('Page.captureScreenshot', () => ({ data: big }));
    await send(a.client, cmd('Page.captureScreenshot', { format: 'png' }));
    const [reply] = a.sink.take() as [{ result: { data: string } }];
    assert.equal(reply.result.data.length, big.length);
  });
});

describe('CdpMux: sessions a client attaches', () => {
  it("adopts the session of an attachToTarget reply, and leaves its id on that session's replies", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const attach = cmd('Target.attachToTarget', { targetId: 'T1', flatten: true });
    await send(a.client, attach);
    assert.deepEqual(a.sink.take(), [{ id: attach.id, result: { sessionId: 'P1' } }]);

    const m = cmd('Runtime.evaluate', { expression: '1' }, 'P1');
    await send(a.client, m);
    assert.equal(chromium.last('Runtime.evaluate')?.sessionId, 'P1');
    const text = a.sink.texts.at(-1) ?? '';
    assert.ok(text.endsWith(',"sessionId":"P1"}'), text);
    assert.deepEqual(JSON.parse(text), { id: m.id, result: { echo: 'Runtime.evaluate', params: { expression: '1' } }, sessionId: 'P1' });

    chromium.event('Page.loadEventFired', { timestamp: 2 }, 'P1');
    await settle();
    assert.deepEqual(a.sink.messages.at(-1), { method: 'Page.loadEventFired', params: { timestamp: 2 }, sessionId: 'P1' });
  });

  it('adopts a session attached from a session it holds, and from attachToBrowserTarget', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    await send(a.client, cmd('Target.attachToTarget', { targetId: 'T1', flatten: true }));
    await send(a.client, cmd('Target.attachToTarget', { targetId: 'T2', flatten: true }, 'P1'));
    await send(a.client, cmd('Target.attachToBrowserTarget'));
    a.sink.take();
    for (const session of ['P1', 'P2', 'B2']) {
      await send(a.client, cmd('Runtime.enable', {}, session));
      assert.equal(chromium.last('Runtime.enable')?.sessionId, session);
      assert.equal(a.sink.take()[0]?.sessionId, session);
    }
  });

  it('does not adopt the reply of a failed attach', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    await send(a.client, cmd('Target.attachToTarget', { targetId: 'gone', flatten: true }));
    assert.ok(a.sink.take()[0]?.error);
    const before = chromium.received.length;
    await send(a.client, cmd('Runtime.enable', {}, 'P1'));
    assert.equal(chromium.received.length, before);
  });

  it('adopts auto-attached sessions, a child of a child included', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const b = await open();
    chromium.autoAttach('B1', 'C1');
    await settle();
    chromium.autoAttach('C1', 'C2'); // e.g. an iframe of that page
    await settle();
    chromium.autoAttach('C2', 'C3'); // a worker of that iframe
    await settle();
    const events = a.sink.take();
    assert.deepEqual(
      events.map((e) => [e.method, e.sessionId, (e.params as Json).sessionId]),
      [
        ['Target.attachedToTarget', undefined, 'C1'],
        ['Target.attachedToTarget', 'C1', 'C2'],
        ['Target.attachedToTarget', 'C2', 'C3'],
      ],
    );
    for (const session of ['C1', 'C2', 'C3']) {
      await send(a.client, cmd('Runtime.enable', {}, session));
      assert.equal(chromium.last('Runtime.enable')?.sessionId, session);
    }
    assert.equal(a.sink.take().length, 3);
    assert.deepEqual(b.sink.messages, []);
  });

  it('adopts sessions from an attachedToTarget event with many fields before params.sessionId', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    chromium.writeText(
      `{"method":"Target.attachedToTarget","params":{"targetInfo":{"targetId":"T","title":"${'t'.repeat(500)}"},"waitingForDebugger":false,"sessionId":"C9"},"sessionId":"B1"}`,
    );
    await settle();
    await send(a.client, cmd('Runtime.enable', {}, 'C9'));
    assert.equal(chromium.last('Runtime.enable')?.sessionId, 'C9');
  });

  it('forgets a session detached from it, and the sessions under it', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    chromium.autoAttach('B1', 'C1');
    chromium.autoAttach('C1', 'C2');
    chromium.autoAttach('C2', 'C3');
    chromium.autoAttach('B1', 'D1');
    await settle();
    chromium.detached('B1', 'C1');
    await settle();
    a.sink.take();
    const before = chromium.received.length;
    for (const session of ['C1', 'C2', 'C3']) {
      const m = cmd('Runtime.enable', {}, session);
      await send(a.client, m);
      assert.deepEqual(a.sink.take(), [
        { id: m.id, error: { code: -32001, message: 'Session with given id not found.' }, sessionId: session },
      ]);
    }
    assert.equal(chromium.received.length, before, 'nothing reached Chromium');
    chromium.event('Page.loadEventFired', {}, 'C2');
    await settle();
    assert.deepEqual(a.sink.messages, [], 'nor does anything come back from them');
    await send(a.client, cmd('Runtime.enable', {}, 'D1'));
    assert.equal(chromium.last('Runtime.enable')?.sessionId, 'D1', 'a sibling stays');
  });

  it('keeps its root when Chromium reports a child-level detach naming the root', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    chromium.detached('B1', 'B1');
    await settle();
    a.sink.take();
    await send(a.client, cmd('Runtime.enable'));
    assert.equal(chromium.last('Runtime.enable')?.sessionId, 'B1');
  });
});

describe('CdpMux: isolation between clients', () => {
  it("answers a client addressing another client's session as Chromium would, sending nothing", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const b = await open();
    await send(b.client, cmd('Target.attachToTarget', { targetId: 'T1', flatten: true }));
    chromium.autoAttach('B2', 'C1');
    await settle();
    const before = chromium.received.length;
    for (const session of ['B2', 'P1', 'C1', 'UNKNOWN']) {
      const m = cmd('Page.navigate', { url: 'https://x/' }, session);
      await send(a.client, m);
      assert.deepEqual(a.sink.take(), [
        { id: m.id, error: { code: -32001, message: 'Session with given id not found.' }, sessionId: session },
      ]);
    }
    assert.equal(chromium.received.length, before, 'nothing reached Chromium');
  });

  it("never delivers one client's sessions to another", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const b = await open();
    chromium.autoAttach('B1', 'C1');
    chromium.autoAttach('B2', 'C2');
    await settle();
    a.sink.take();
    b.sink.take();
    chromium.event('Runtime.consoleAPICalled', { type: 'log' }, 'C1');
    chromium.event('Runtime.consoleAPICalled', { type: 'warn' }, 'C2');
    await settle();
    assert.deepEqual(a.sink.messages, [{ method: 'Runtime.consoleAPICalled', params: { type: 'log' }, sessionId: 'C1' }]);
    assert.deepEqual(b.sink.messages, [{ method: 'Runtime.consoleAPICalled', params: { type: 'warn' }, sessionId: 'C2' }]);
  });

  it("is not fooled by a session id inside a page's text", async () => {
    const { chromium, open } = await setup();
    const a = await open();
    const b = await open();
    chromium.autoAttach('B2', 'C2');
    await settle();
    b.sink.take();
    // A page of client A logs text that ends like a message of client B's session.
    chromium.event('Runtime.consoleAPICalled', { args: [{ type: 'string', value: 'x","sessionId":"C2"}' }] }, 'B1');
    chromium.event('Runtime.consoleAPICalled', { args: [{ type: 'string', value: 'x,"sessionId":"C2' }], last: 'x,"sessionId":"C2' }, 'B1');
    await settle();
    assert.equal(a.sink.take().length, 2);
    assert.deepEqual(b.sink.messages, []);
  });
});

describe('CdpMux: clients leaving', () => {
  it("detaches a closed client's root and delivers nothing more to it", async () => {
    const { chromium, mux, open } = await setup();
    const a = await open();
    const b = await open();
    chromium.autoAttach('B1', 'C1');
    await settle();
    a.sink.take();
    a.client.close();
    await settle();
    assert.equal(a.client.ended, true);
    assert.equal(mux.clients, 1);
    const detach = chromium.last('Target.detachFromTarget');
    assert.deepEqual(detach?.params, { sessionId: 'B1' });
    assert.equal(detach?.sessionId, undefined, "sent on the pipe's root");
    chromium.event('Page.loadEventFired', {}, 'B1');
    chromium.event('Page.loadEventFired', {}, 'C1');
    chromium.detached(undefined, 'B1');
    await settle();
    assert.deepEqual(a.sink.messages, []);
    assert.equal(a.sink.ended, null, 'a client that left is not told it ended');

    const before = chromium.received.length;
    a.client.send(cmd('Runtime.enable'));
    await settle();
    assert.equal(chromium.received.length, before, 'a closed client sends nothing');

    a.client.close();
    await settle();
    assert.equal(chromium.received.filter((c) => c.method === 'Target.detachFromTarget').length, 1, 'closing twice detaches once');

    await send(b.client, cmd('Runtime.enable', {}, 'C1'));
    assert.equal(b.sink.take()[0]?.error !== undefined, true, 'the other client cannot pick up its sessions');
  });

  it('ends a client whose root session Chromium detached', async () => {
    const { chromium, mux, open } = await setup();
    const a = await open({ kind: 'page', targetId: 'T1' });
    const b = await open();
    chromium.detached(undefined, 'P1');
    await settle();
    assert.equal(a.sink.ended, 'its target was closed');
    assert.equal(a.client.ended, true);
    assert.equal(b.sink.ended, null);
    assert.equal(mux.clients, 1);
    chromium.event('Page.loadEventFired', {}, 'P1');
    await settle();
    assert.deepEqual(a.sink.messages, []);
  });

  it('ends every client and rejects pending calls when the pipe closes', async () => {
    const { chromium, mux, open } = await setup();
    const a = await open();
    const b = await open({ kind: 'page', targetId: 'T1' });
    chromium.manual.add('Browser.getVersion');
    chromium.manual.add('Target.attachToBrowserTarget');
    const pending = assert.rejects(
      mux.call('Browser.getVersion'),
      (err: Error) => err instanceof CdpError && err.message === 'Browser.getVersion: the browser is gone',
    );
    const opening = assert.rejects(mux.open({ kind: 'browser' }, new Sink()), CdpError);
    await settle();
    chromium.fromBrowser.end();
    await settle();
    assert.equal(chromium.pipe.closed, true);
    assert.equal(a.sink.ended, 'the browser is gone');
    assert.equal(b.sink.ended, 'the browser is gone');
    assert.equal(a.client.ended, true);
    assert.equal(mux.clients, 0);
    await pending;
    await opening;
    await assert.rejects(mux.call('Browser.getVersion'), /the browser is gone/);
    await assert.rejects(mux.open({ kind: 'browser' }, new Sink()), CdpError);
    assert.equal(chromium.received.filter((c) => c.method === 'Target.detachFromTarget').length, 0, 'nothing is sent to a closed pipe');
  });
});

describe("CdpMux: the service's own calls", () => {
  it("resolves with the result and rejects with Chromium's error", async () => {
    const { chromium, mux } = await setup();
    chromium.handlers.set('Browser.getVersion', () => ({ product: 'HeadlessChrome/1' }));
    chromium.handlers.set('Target.closeTarget', () => ({ error: { code: -32602, message: 'No target with given id found' } }));
    assert.deepEqual(await mux.call('Browser.getVersion'), { product: 'HeadlessChrome/1' });
    await assert.rejects(
      mux.call('Target.closeTarget', { targetId: 'x' }),
      (err: Error) => err instanceof CdpError && err.message === 'Target.closeTarget: No target with given id found',
    );
  });

  it("calls on a session of its own, not confused with clients' replies", async () => {
    const { chromium, mux, open } = await setup();
    const a = await open();
    const { sessionId } = await mux.call<{ sessionId: string }>('Target.attachToTarget', { targetId: 'T1', flatten: true });
    assert.equal(sessionId, 'P1');
    const result = await mux.call('Runtime.evaluate', { expression: '1' }, sessionId);
    assert.deepEqual(result, { echo: 'Runtime.evaluate', params: { expression: '1' } });
    assert.equal(chromium.last('Runtime.evaluate')?.sessionId, 'P1');
    assert.deepEqual(a.sink.messages, [], "the service's session is not a client's");
    const before = chromium.received.length;
    await send(a.client, cmd('Runtime.evaluate', {}, 'P1'));
    assert.equal(chromium.received.length, before, 'nor can a client address it');
  });

  it("sends the service's calls with params, and a session only when given", async () => {
    const { chromium, mux } = await setup();
    await mux.call('Target.getTargets');
    await mux.call('Runtime.enable', {}, 'S9');
    assert.deepEqual(
      chromium.raw.slice(-2).map((t) => JSON.parse(t) as Json),
      [
        { id: 1, method: 'Target.getTargets', params: {} },
        { id: 2, method: 'Runtime.enable', params: {}, sessionId: 'S9' },
      ],
    );
  });

  // A reply on a session nobody holds any more must not be matched to the service's pending calls
  // by its id alone: client ids and service ids share no namespace. Here a client's command races
  // its session's detach; Chromium answers it with -32001 on that session, and the service's
  // unrelated Browser.getVersion (same id) must keep waiting for its own reply.
  it("does not hand a client's late reply to a service call with the same id", async () => {
    const { chromium, mux, open } = await setup();
    const a = await open(); // service call id 1
    chromium.autoAttach('B1', 'C1');
    await settle();
    chromium.manual.add('Browser.getVersion');
    chromium.manual.add('Runtime.evaluate');
    const version = mux.call('Browser.getVersion'); // service call id 2
    let settled: string | null = null;
    version.then(
      () => (settled = 'resolved'),
      (err: Error) => (settled = `rejected: ${err.message}`),
    );
    await send(a.client, { id: 2, method: 'Runtime.evaluate', params: { expression: '1' }, sessionId: 'C1' });
    chromium.detached('B1', 'C1');
    chromium.write({ id: 2, error: { code: -32001, message: 'Session with given id not found.' } }, 'C1');
    await settle();
    assert.equal(settled, null, "the service's call is still waiting for its own reply");
    chromium.reply(chromium.last('Browser.getVersion') as Command, { product: 'HeadlessChrome/1' });
    assert.deepEqual(await version, { product: 'HeadlessChrome/1' });
  });

  // The same, worse: a client closes with an attach in flight while another client opens. The
  // leaving client's late attach reply carries the opening call's id; the new client must still be
  // rooted at the browser session Chromium made for it, not the leaving client's page session.
  it("does not root a new client at a leaving client's late attach reply", async () => {
    const { chromium, mux, open } = await setup();
    const a = await open(); // service call id 1: B1
    chromium.manual.add('Target.attachToTarget');
    chromium.manual.add('Target.attachToBrowserTarget');
    chromium.manual.add('Target.detachFromTarget');
    await send(a.client, { id: 3, method: 'Target.attachToTarget', params: { targetId: 'T1', flatten: true } });
    a.client.close(); // Target.detachFromTarget: service call id 2
    const opening = mux.open({ kind: 'browser' }, new Sink()); // Target.attachToBrowserTarget: service call id 3
    await settle();
    chromium.reply(chromium.last('Target.attachToTarget') as Command, { sessionId: 'P1' }); // a's late reply, on B1
    chromium.reply(chromium.last('Target.attachToBrowserTarget') as Command, { sessionId: 'B2' });
    const b = await opening;
    assert.equal(b.root, 'B2');
  });
});

describe('MuxClient: flow control', () => {
  it('pauses reading the pipe while held, once however often it is held', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    a.client.hold();
    a.client.hold();
    assert.equal(chromium.fromBrowser.isPaused(), true);
    chromium.event('Page.loadEventFired', {}, 'B1');
    await settle();
    assert.deepEqual(a.sink.messages, []);
    a.client.release();
    await settle();
    assert.equal(chromium.fromBrowser.isPaused(), false);
    assert.equal(a.sink.take().length, 1);
    a.client.release();
    assert.equal(chromium.fromBrowser.isPaused(), false);
  });

  it('releases the pipe when a held client closes', async () => {
    const { chromium, open } = await setup();
    const a = await open();
    a.client.hold();
    a.client.close();
    assert.equal(chromium.fromBrowser.isPaused(), false);
  });
});

describe('tailSessionId', () => {
  const t = (text: string | Buffer) => tailSessionId(Buffer.isBuffer(text) ? text : Buffer.from(text));

  it('reads the session id Chromium appended', () => {
    assert.equal(t('{"id":1,"result":{},"sessionId":"AB12"}'), 'AB12');
    assert.equal(
      t('{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"E1F2A3B4C5D6E7F8A9B0C1D2E3F4A5B6"}'),
      'E1F2A3B4C5D6E7F8A9B0C1D2E3F4A5B6',
    );
    assert.equal(t('{"id":1,"result":{"sessionId":"INNER"},"sessionId":"OUTER"}'), 'OUTER');
    assert.equal(t('{"id":1,"result":{"v":"\\\\"},"sessionId":"S"}'), 'S', 'after a string ending in a backslash');
    assert.equal(t('{"id":1,"result":{"v":"x\\",\\"sessionId\\":\\"X"},"sessionId":"S"}'), 'S');
  });

  it('says null for a message without any session', () => {
    assert.equal(t('{"id":1,"result":{}}'), null);
    assert.equal(t('{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"T","title":"a"}}}'), null);
    assert.equal(t('{"id":1,"result":{"v":"ab"}}'), null);
    assert.equal(t('{"id":1,"x":"y"}'), null, 'ends with a quote and a brace, but no session');
    assert.equal(t('{}'), null);
    assert.equal(t('}'), null);
    assert.equal(t(''), null);
  });

  it("never takes a nested sessionId for the message's own", () => {
    const r = t('{"method":"Target.attachedToTarget","params":{"sessionId":"AB"}}');
    assert.notEqual(r, 'AB');
    assert.equal(r, undefined, 'undecided: the mux parses it');
    assert.equal(t('{"method":"Target.attachedToTarget","params":{"targetInfo":{},"sessionId":"AB"}}'), undefined);
    assert.equal(t('{"method":"X","params":{"a":1,"sessionId":"AB"},"z":"q"}'), undefined);
    assert.equal(t('{"id":1,"result":{"a":{"b":1,"sessionId":"Q"}},"z":"R"}'), undefined);
  });

  it('is not fooled by an escaped tail inside a string', () => {
    // A page-controlled string ending in `,"sessionId":"X"}` is escaped by Chromium's JSON writer.
    const text = JSON.stringify({
      method: 'Runtime.consoleAPICalled',
      params: { args: [{ type: 'string', value: 'a,"sessionId":"X"}' }] },
    });
    assert.ok(text.includes(',\\"sessionId\\":\\"X\\"}'));
    assert.equal(t(text), null);
    const last = JSON.stringify({ id: 1, v: 'a,"sessionId":"X"}' });
    assert.ok(last.endsWith('}"}'));
    assert.equal(t(last), null);
    const lastNoBrace = JSON.stringify({ id: 1, v: 'a,"sessionId":"X' });
    assert.ok(lastNoBrace.endsWith('X"}'));
    assert.equal(t(lastNoBrace), null);
    assert.equal(t(`${JSON.stringify({ id: 1, v: 'a,"sessionId":"X"}' }).slice(0, -1)},"sessionId":"REAL"}`), 'REAL');
  });

  it('leaves session ids it cannot vouch for undecided', () => {
    assert.equal(t('{"id":1,"sessionId":"a b"}'), undefined);
    assert.equal(t('{"id":1,"sessionId":""}'), undefined);
    assert.equal(t(`{"id":1,"sessionId":"${'a'.repeat(129)}"}`), undefined);
    assert.equal(t('{"id":1,"sessionId":"S","result":{}}'), undefined, 'not last: parse it');
    assert.equal(t('{"id":1,"result":{}, "sessionId":"S"}'), undefined, 'not the bytes Chromium writes');
    assert.equal(t(Buffer.from('{"id":1,"sessionId":"\u00e9"}', 'latin1')), undefined);
  });

  it('reads big messages', () => {
    const big = 'z'.repeat(20 * 1024 * 1024);
    assert.equal(t(`{"id":1,"result":{"data":"${big}"},"sessionId":"BIG1"}`), 'BIG1');
    assert.equal(t(`{"id":1,"result":{"data":"${big}"}}`), null);
    assert.equal(t(`{"id":1,"result":{"data":"${big}","sessionId":"N"}}`), undefined);
  });
});
