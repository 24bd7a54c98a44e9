import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromiumProcesses, eventually, profileDirs } from '../helpers/browser.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * A client that disappears at any moment of /start leaves nothing behind (issue: three resets
 * during provisioning left four live instances and no holder). Each stage is reset with a TCP RST.
 */
describe('a /start client that resets its connection', () => {
  let service: ServiceProcess;
  let token: string;

  before(async () => {
    // No warm pool: every /start is a cold launch, so "during provisioning" lasts long enough to hit.
    service = await startService({ BROWSER_POOL_SIZE: '0' });
    token = service.createKey({ maxInstances: 20 }).token;
  });
  after(() => service.stop());

  function handshake(): Promise<Socket> {
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    return new Promise((resolve) => socket.once('connect', () => resolve(socket)));
  }
  const request = (port: string) =>
    [
      'GET /start HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      `Authorization: Bearer ${token}`,
      '',
      '',
    ].join('\r\n');

  const live = async () => ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { live: number } }).browsers.live;
  const provisioned = () => service.logs.filter((l) => l.msg === 'instance provisioned').length;

  it('can see a leak: a /start that is not reset holds a live instance', async () => {
    const socket = await handshake();
    socket.write(request(new URL(service.url).port));
    assert.equal(await eventually(live, (n) => n === 1, 10_000), 1);
    socket.resetAndDestroy();
    assert.equal(await eventually(live, (n) => n === 0), 0);
  });

  for (const stage of [
    'halfway through the headers',
    'while the browser is provisioned',
    'right after the 101, before reading the id',
    'after the id arrived',
  ]) {
    it(`ends everything when reset ${stage}`, async () => {
      const before = provisioned();
      for (let i = 0; i < 3; i++) {
        const socket = await handshake();
        const text = request(new URL(service.url).port);
        if (stage === 'halfway through the headers') {
          socket.write(text.slice(0, 60));
          await new Promise((r) => setTimeout(r, 20));
        } else if (stage === 'while the browser is provisioned') {
          // Reset once a Chromium for this client has begun to start: provisioning is under way
          // (a cold launch takes tens of milliseconds more before the client could get its id).
          // (Processes of an earlier client may still be going away: a new pid is what counts.)
          const running = new Set(await chromiumProcesses(service.dataDir));
          socket.write(text);
          const started = await eventually(
            async () => (await chromiumProcesses(service.dataDir)).some((pid) => !running.has(pid)),
            Boolean,
            10_000,
          );
          if (!started) socket.resetAndDestroy(); // leave nothing behind for the next stage
          assert.ok(started && !socket.destroyed, 'a browser has begun to start for a client that is still there');
        } else {
          socket.write(text);
          let data = '';
          await new Promise<void>((resolve) =>
            socket.on('data', (c: Buffer) => {
              data += c.toString('latin1');
              if (stage.startsWith('right after') ? data.includes('\r\n\r\n') : /br_[A-Za-z0-9_-]{32}/.test(data)) resolve();
            }),
          );
        }
        socket.resetAndDestroy();
      }
      assert.equal(await eventually(live, (n) => n === 0, 10_000), 0, 'no live instance');
      // Every instance that was provisioned for these clients has ended.
      await eventually(
        () => service.logs.filter((l) => l.msg === 'instance ended').length,
        (n) => n === provisioned(),
      );
      assert.equal(service.logs.filter((l) => l.msg === 'instance ended').length, provisioned());
      // Headers never finished: nothing was provisioned. Reset after the 101: a browser each, and each ended.
      if (stage === 'halfway through the headers') assert.equal(provisioned(), before, 'no browser for a handshake that never finished');
      if (stage.startsWith('right after') || stage.startsWith('after the id'))
        assert.equal(provisioned() - before, 3, 'one browser per client');
      assert.deepEqual(
        await eventually(
          () => chromiumProcesses(service.dataDir),
          (p) => p.length === 0,
        ),
        [],
      );
      assert.deepEqual(
        await eventually(
          () => profileDirs(service.dataDir),
          (d) => d.length === 0,
        ),
        [],
      );
    });
  }
});
