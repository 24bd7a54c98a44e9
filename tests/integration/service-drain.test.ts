import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { START_CLOSE } from '#shared/protocol/start.ts';
import { debuggerUrl, eventually, openStart, refusedStart } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * A service node told to stop (SIGTERM) with SHUTDOWN_DRAIN_SECONDS set: a rolling restart that
 * ends nobody's session (README, "Several machines"). Real service processes and real Chromium.
 */
// A drain far longer than a test may take: a node that does not stop when it should fails by timeout.
const LONG = '3600';

describe('a service node draining before it stops', { timeout: 60_000 }, () => {
  const exitOf = (service: ServiceProcess) =>
    new Promise<number | null>((resolve) => {
      if (service.child.exitCode !== null) return resolve(service.child.exitCode);
      service.child.once('exit', (code) => resolve(code));
    });
  const health = async (service: ServiceProcess) => {
    const res = await fetch(`${service.url}/healthz`);
    return { status: res.status, body: (await res.json()) as { status: string; browsers: { live: number } } };
  };

  it('keeps its live browser, refuses new ones, says so on /healthz, and stops once that browser ends', async () => {
    const service = await startService({ SHUTDOWN_DRAIN_SECONDS: LONG, BROWSER_POOL_SIZE: '0' });
    try {
      const token = service.createKey({}).token;
      const held = await openStart(service.wsUrl, token);
      const cdp = await RawCdp.connect(await debuggerUrl(service.url, held.headers), held.headers);
      assert.equal((await health(service)).status, 200);
      const exited = exitOf(service);

      service.child.kill('SIGTERM');
      const draining = await eventually(
        () => health(service),
        (h) => h.status === 503,
      );
      assert.deepEqual([draining.status, draining.body.status, draining.body.browsers.live], [503, 'draining', 1]);
      const refused = await refusedStart(service.wsUrl, { authorization: `Bearer ${token}` });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['retry-after'], '5');
      assert.match(String(refused.body.error), /shutting down and takes no new browsers/);
      // The live browser is untouched: its DevTools connection answers, its /start stays open.
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      const { result } = await cdp.send<{ result: { value: number } }>(
        'Runtime.evaluate',
        { expression: '6 * 7', returnByValue: true },
        sessionId,
      );
      assert.equal(result.value, 42);
      assert.equal(held.socket.readyState, held.socket.OPEN);
      assert.equal(service.child.exitCode, null, 'still running while a browser lives');

      await cdp.close();
      held.socket.close();
      assert.equal(await exited, 0, 'stops by itself once its last browser ended');
    } finally {
      await service.stop();
    }
  });

  /** A service holding one browser, stopped by `stop`: its client hears the shutdown close code, and the process exits with 0. */
  async function endsItsBrowser(env: Record<string, string>, stop: (service: ServiceProcess) => Promise<void>, what: string) {
    const service = await startService({ BROWSER_POOL_SIZE: '0', ...env });
    try {
      const held = await openStart(service.wsUrl, service.createKey({}).token);
      const exited = exitOf(service);
      await stop(service);
      assert.deepEqual(await held.closed, START_CLOSE.shutdown, what);
      assert.equal(await exited, 0, what);
    } finally {
      await service.stop();
    }
  }

  it('ends what is left when the drain time is up: the client hears the shutdown close code', async () => {
    await endsItsBrowser(
      { SHUTDOWN_DRAIN_SECONDS: '3' },
      async (s) => {
        s.child.kill('SIGTERM');
        // It drains first, its browser kept, and only then ends it.
        const draining = await eventually(
          () => health(s),
          (h) => h.status === 503,
        );
        assert.deepEqual([draining.body.status, draining.body.browsers.live], ['draining', 1]);
      },
      'drain time up',
    );
  });

  it('stops at once on a second signal, and at once on SIGINT', async () => {
    await endsItsBrowser(
      { SHUTDOWN_DRAIN_SECONDS: LONG },
      async (s) => {
        s.child.kill('SIGTERM');
        await eventually(
          () => health(s),
          (h) => h.status === 503,
        );
        // A signal within a second of the first is the same stop (a supervisor and npm both forward it).
        await new Promise((r) => setTimeout(r, 1100));
        s.child.kill('SIGTERM');
      },
      'a second SIGTERM',
    );
    await endsItsBrowser({ SHUTDOWN_DRAIN_SECONDS: LONG }, async (s) => void s.child.kill('SIGINT'), 'SIGINT');
  });

  it('stops at once on SIGTERM without SHUTDOWN_DRAIN_SECONDS, as before', async () => {
    await endsItsBrowser({}, async (s) => void s.child.kill('SIGTERM'), 'no drain');
  });
});
