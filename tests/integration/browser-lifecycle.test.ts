import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PREPARED_PREFIX } from '#service/browser/instance-folders.ts';
import type { IsolationReport } from '#service/browser/sandbox/probe.ts';
import { processesOfUids } from '#service/browser/sandbox/uids.ts';
import { chromiumProcesses, debuggerUrl, eventually, instancesDir, killAll, openStart, profileDirs } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** Pool size 0: every Chromium and profile under DATA_DIR belongs to a live instance. */
const NO_POOL = { BROWSER_POOL_SIZE: '0' };

const nothingLeft = async (service: ServiceProcess) => {
  const left = await eventually(
    async () => ({ processes: (await chromiumProcesses(service.dataDir)).length, profiles: profileDirs(service.dataDir).length }),
    (v) => v.processes === 0 && v.profiles === 0,
    2000,
  );
  assert.deepEqual(left, { processes: 0, profiles: 0 }, 'no Chromium process and no profile directory left within 2 s');
};

describe('instance lifecycle', () => {
  let service: ServiceProcess;
  let token: string;

  before(async () => {
    service = await startService({ ...NO_POOL, START_PING_INTERVAL_MS: '1000' });
    token = service.createKey({ name: 'lifecycle', maxInstances: 10 }).token;
  });
  after(() => service.stop());

  it('ends the instance when /start closes: id refused, no process, no profile', async () => {
    const started = await openStart(service.wsUrl, token);
    assert.equal((await chromiumProcesses(service.dataDir)).length > 0, true);
    assert.equal(profileDirs(service.dataDir).length, 1);
    const url = (
      (await (await fetch(`${service.url}/json/version`, { headers: started.headers })).json()) as { webSocketDebuggerUrl: string }
    ).webSocketDebuggerUrl;
    const cdp = await RawCdp.connect(url, started.headers);
    const cdpClosed = new Promise<void>((resolve) => cdp.socket.once('close', () => resolve()));

    started.socket.close();
    await started.closed;
    await nothingLeft(service);
    await cdpClosed;
    const after = await fetch(`${service.url}/json/version`, { headers: started.headers });
    assert.equal(after.status, 404);
    assert.equal(typeof ((await after.json()) as { error: unknown }).error, 'string');
  });

  it('leaves nothing behind after 50 start/stop cycles', async () => {
    for (let i = 0; i < 50; i++) {
      const started = await openStart(service.wsUrl, token);
      if (i % 2 === 0) started.socket.terminate();
      else started.socket.close();
      await started.closed;
    }
    await nothingLeft(service);
    const health = (await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { live: number } };
    assert.equal(health.browsers.live, 0);
  });

  it('closes /start with 4500 when Chromium is killed from outside', async () => {
    const started = await openStart(service.wsUrl, token);
    const pids = await chromiumProcesses(service.dataDir);
    assert.ok(pids.length > 0);
    killAll(pids);
    const closed = await started.closed;
    assert.deepEqual(closed, { code: 4500, reason: 'browser process exited' });
    await nothingLeft(service);
    assert.equal((await fetch(`${service.url}/json/version`, { headers: started.headers })).status, 404);
  });

  it('ignores messages the client sends on /start, and closes with 1009 past 64 KiB', async () => {
    const started = await openStart(service.wsUrl, token);
    started.socket.send('hello');
    started.socket.send(Buffer.from([0, 1, 2, 3]));
    started.socket.send(JSON.stringify({ method: 'Browser.close' }));
    await new Promise((r) => setTimeout(r, 2100)); // two ping intervals: still answered
    assert.equal((await fetch(`${service.url}/json/version`, { headers: started.headers })).status, 200);
    started.socket.send('z'.repeat(64 * 1024 + 1));
    const closed = await started.closed;
    assert.equal(closed.code, 1009);
    await nothingLeft(service);
  });

  it('ends the instance of a peer that stops answering pings', async () => {
    // A raw TCP client that completes the handshake and then never reads a frame or answers a ping.
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      [
        'GET /start HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        `Authorization: Bearer ${token}`,
        '',
        '',
      ].join('\r\n'),
    );
    const head = await new Promise<string>((resolve) => socket.once('data', (c: Buffer) => resolve(c.toString('latin1'))));
    assert.match(head, /^HTTP\/1\.1 101 /);
    socket.pause();
    assert.equal(profileDirs(service.dataDir).length, 1);
    const ended = await eventually(
      () => service.logs.some((l) => l.msg === 'instance ended' && l.reason === 'client-unresponsive'),
      Boolean,
      5000,
    );
    assert.ok(ended, 'the service logged the unresponsive peer');
    await nothingLeft(service);
    socket.destroy();
  });

  it('closes /start with 4401 when the key is revoked while the instance is live', async () => {
    const key = service.createKey({ name: 'to revoke' });
    const started = await openStart(service.wsUrl, key.token);
    const r = await service.keysCliAsync(['revoke', key.id]);
    assert.equal(r.status, 0, r.stderr);
    const closed = await started.closed;
    assert.deepEqual(closed, { code: 4401, reason: 'API key revoked' });
    await nothingLeft(service);
  });
});

describe('lifetime limit', () => {
  let service: ServiceProcess;
  before(async () => {
    service = await startService({ ...NO_POOL, BROWSER_MAX_LIFETIME_SECONDS: '1' });
  });
  after(() => service.stop());

  it('closes /start with 4408 when the instance reaches its lifetime', async () => {
    const started = await openStart(service.wsUrl, service.createKey().token);
    const closed = await started.closed;
    assert.deepEqual(closed, { code: 4408, reason: 'instance lifetime limit reached' });
    await nothingLeft(service);
  });
});

describe('graceful shutdown', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal} closes every /start with 1001 and leaves no process or profile`, async () => {
      const service = await startService({ BROWSER_POOL_SIZE: '2' });
      const token = service.createKey({ maxInstances: 3 }).token;
      const started = await Promise.all([openStart(service.wsUrl, token), openStart(service.wsUrl, token)]);
      assert.equal(profileDirs(service.dataDir).length >= 2, true);
      const dataDir = service.dataDir;
      service.child.kill(signal);
      const closes = await Promise.all(started.map((s) => s.closed));
      for (const c of closes) assert.deepEqual(c, { code: 1001, reason: 'service shutting down' });
      const code = await new Promise<number | null>((resolve) => {
        if (service.child.exitCode !== null) resolve(service.child.exitCode);
        else service.child.once('exit', (c) => resolve(c));
      });
      assert.equal(code, 0);
      // The launch it kept prepared went too.
      assert.equal((await chromiumProcesses(dataDir, { withPrepared: true })).length, 0);
      assert.deepEqual(profileDirs(dataDir, { withPrepared: true }), []);
      await service.stop();
    });
  }
});

describe('a service that was killed outright', () => {
  it('ends whatever its browsers left, and removes their folders, when it starts again', async () => {
    const first = await startService({ BROWSER_POOL_SIZE: '1' });
    const dataDir = first.dataDir;
    await openStart(first.wsUrl, first.createKey().token);
    assert.ok((await chromiumProcesses(dataDir)).length > 0, 'browsers run before the kill');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    // Live sandboxes die with the service (bwrap --die-with-parent), but one the warm pool was
    // launching at that moment may not have reached bwrap yet: the next start ends it.
    assert.ok(profileDirs(dataDir).length >= 1, "the killed service left its instances' folders");

    const second = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    assert.ok(second.logs.some((l) => l.msg === 'ended browsers and removed folders left by an earlier run'));
    assert.deepEqual(await chromiumProcesses(dataDir), []);
    assert.deepEqual(profileDirs(dataDir), []);
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('the launch prepared ahead', () => {
  const comms = (pids: number[]) =>
    pids.map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    });

  it('waits as a sandbox of its own uid, in its own cgroups, Chromium not yet run; /start takes it and another is prepared', async () => {
    const service = await startService(NO_POOL);
    try {
      const health = async () =>
        ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { prepared: number; isolation: IsolationReport } }).browsers;
      assert.equal((await eventually(health, (b) => b.prepared === 1, 10_000)).prepared, 1);
      const { isolation } = await health();
      const ready = profileDirs(service.dataDir, { withPrepared: true });
      assert.equal(ready.length, 1);
      const [folder] = ready as [string];
      assert.ok(folder.startsWith(PREPARED_PREFIX), folder);
      const name = folder.slice(PREPARED_PREFIX.length);
      assert.deepEqual(profileDirs(service.dataDir), [], 'not an instance');
      assert.deepEqual(await chromiumProcesses(service.dataDir), [], 'no browser runs');

      const uid = statSync(join(instancesDir(service.dataDir), folder, 'home')).uid;
      assert.ok(isolation.uidPerInstance, 'the service runs as root in these tests, so each instance has a uid of its own');
      assert.notEqual(uid, 0);
      // The relay is forked as a shell a moment before it becomes socat.
      const commands = async () => [...new Set(comms((await processesOfUids(uid, uid + 1)).map((p) => p.pid)))].sort();
      assert.deepEqual(
        await eventually(commands, (c) => c.join() === 'bwrap,sh,socat', 5000),
        ['bwrap', 'sh', 'socat'],
        'the sandbox and its relay wait, as the instance uid; no Chromium yet',
      );
      const waiting = (await processesOfUids(uid, uid + 1)).map((p) => p.pid);
      if (isolation.cgroups?.memory && isolation.cgroups.pids) {
        for (const pid of waiting) {
          const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
          const joined = lines.split('\n').filter((l) => l.endsWith(`/${name}`));
          assert.ok(joined.length >= 1, `process ${pid} is in the instance's cgroups: ${lines}`);
        }
      }

      const started = await openStart(service.wsUrl, service.createKey().token);
      assert.deepEqual(profileDirs(service.dataDir), [name], 'the instance runs in the prepared folder, under its running name');
      const running = comms((await processesOfUids(uid, uid + 1)).map((p) => p.pid));
      assert.ok(
        running.some((c) => !['bwrap', 'sh', 'socat'].includes(c)),
        `Chromium runs as the prepared uid: ${running.join(', ')}`,
      );
      // Its folder appears a moment before its home is made and handed to its uid: wait until the
      // service counts it as prepared, which is after that.
      assert.equal((await eventually(health, (b) => b.prepared === 1, 10_000)).prepared, 1);
      const next = profileDirs(service.dataDir, { withPrepared: true }).filter((n) => n.startsWith(PREPARED_PREFIX));
      assert.equal(next.length, 1, 'the next launch is prepared');
      assert.notEqual(statSync(join(instancesDir(service.dataDir), next[0] as string, 'home')).uid, uid, 'with another uid');

      started.socket.close();
      await started.closed;
      await nothingLeft(service);
      assert.deepEqual(await processesOfUids(uid, uid + 1), [], "nothing of the instance's uid is left");
    } finally {
      await service.stop();
    }
  });

  it('discards a prepared sandbox that died while it waited, and starts the browser in a new one', async () => {
    const service = await startService(NO_POOL);
    try {
      const prepared = async () =>
        ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { prepared: number } }).browsers.prepared;
      assert.equal(await eventually(prepared, (n) => n === 1, 10_000), 1);
      const [folder] = profileDirs(service.dataDir, { withPrepared: true }) as [string];
      const uid = statSync(join(instancesDir(service.dataDir), folder, 'home')).uid;
      killAll((await processesOfUids(uid, uid + 1)).map((p) => p.pid));
      assert.equal(await eventually(prepared, (n) => n === 0, 5000), 0, 'a dead sandbox is not counted as prepared');

      const started = await openStart(service.wsUrl, service.createKey().token);
      const cdp = await RawCdp.connect(await debuggerUrl(service.url, started.headers), started.headers);
      const { targetInfos } = await cdp.send<{ targetInfos: unknown[] }>('Target.getTargets');
      assert.ok(targetInfos.length >= 1, 'the browser answers');
      await cdp.close();
      assert.ok(!profileDirs(service.dataDir, { withPrepared: true }).includes(folder), 'the dead one was removed');
      assert.ok(service.logs.some((l) => l.msg === 'the prepared browser launch did not wait for its start; preparing another'));
      started.socket.close();
      await started.closed;
      await nothingLeft(service);
    } finally {
      await service.stop();
    }
  });
});
