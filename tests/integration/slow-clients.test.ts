import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/browser.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** Slow and greedy clients cannot hold the service: header deadlines, and a cap per client address. */
describe('slow and greedy clients', () => {
  let service: ServiceProcess;
  let port: number;
  const sockets: Socket[] = [];

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', HTTP_HEADERS_TIMEOUT_SECONDS: '1', MAX_CONNECTIONS_PER_ADDRESS: '10' });
    port = Number(new URL(service.url).port);
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await service.stop();
  });

  /** A connection from `from` (any loopback address); resolves once connected, with a flag that turns true when the server closes it. */
  async function open(from = '127.0.0.1'): Promise<{ socket: Socket; closed: () => boolean }> {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(socket);
    let closed = false;
    socket.on('error', () => {});
    socket.once('close', () => (closed = true));
    // Read what the server sends (its 408 or 400), or its end is never seen.
    socket.resume();
    await new Promise((r) => socket.once('connect', r));
    return { socket, closed: () => closed };
  }

  const health = async () => (await fetch(`${service.url}/healthz`)).status;

  it('drops a /start whose headers never finish', async () => {
    const { socket, closed } = await open();
    socket.write('GET /start HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n');
    assert.equal(await eventually(closed, Boolean, 10_000), true, "closed by the header deadline (Node's default would wait a minute)");
  });

  it('drops a client that dribbles its headers a byte at a time', async () => {
    const { socket, closed } = await open();
    const text = 'GET /start HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Pad: ' + 'a'.repeat(200);
    let i = 0;
    const timer = setInterval(() => !closed() && socket.write(text[i++ % text.length] as string), 100);
    try {
      assert.equal(await eventually(closed, Boolean, 10_000), true);
    } finally {
      clearInterval(timer);
    }
  });

  it('caps connections per address, and keeps answering everyone else meanwhile', async () => {
    const held: Awaited<ReturnType<typeof open>>[] = [];
    for (let i = 0; i < 10; i++) held.push(await open('127.0.0.2'));
    const extra = await open('127.0.0.2');
    assert.equal(await eventually(extra.closed, Boolean, 5000), true, 'the 11th connection from one address is closed at once');
    assert.ok(
      held.every((c) => !c.closed()),
      'the first ten stay open',
    );
    assert.equal(await health(), 200, '/healthz answers another address while they sit open');
    assert.ok(service.logs.some((l) => l.msg === 'connection refused: too many from one address' && l.address === '127.0.0.2'));
    for (const c of held) c.socket.destroy();
    await eventually(() => held.every((c) => c.closed()), Boolean);
    const again = await open('127.0.0.2');
    again.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    const answer = await new Promise<string>((resolve) => again.socket.once('data', (c: Buffer) => resolve(c.toString())));
    assert.ok(answer.length > 0);
    assert.match(answer, /^HTTP\/1\.1 200 /, 'the address is served again once its connections closed');
  });
});
