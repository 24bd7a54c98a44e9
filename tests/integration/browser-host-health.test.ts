import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { closeStart, eventually, openStart, refusedStart } from '../helpers/browser.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * Issue 29, item 7: a host where instances cannot reach their folders must not look healthy. The
 * instances folder is under TMPDIR by default; a TMPDIR inside a folder only root may enter makes
 * every sandbox fail to bind its folders (bwrap: "Can't find source path /proc/self/fd/N").
 */
const root = process.getuid?.() === 0;

type Health = { status: string; reason?: string; browsers: { isolation: { mode: string; problems: string[] } } };

describe('a host where instances cannot reach their folders', { skip: root ? false : 'needs root (a uid per instance)' }, () => {
  const made: string[] = [];
  const services: ServiceProcess[] = [];
  /** TMPDIR for the service: `inner` inside `locked`, which is 0700 (root's alone) or 0755. */
  const lockedTmp = (mode: number) => {
    const locked = mkdtempSync(join(tmpdir(), 'periscope-locked-'));
    made.push(locked);
    const inner = join(locked, 'tmp');
    mkdirSync(inner, { mode: 0o1777 });
    chmodSync(inner, 0o1777);
    chmodSync(locked, mode);
    return { locked, inner };
  };
  const health = async (service: ServiceProcess) => {
    const res = await fetch(`${service.url}/healthz`);
    return { status: res.status, body: (await res.json()) as Health };
  };
  after(async () => {
    for (const service of services) await service.stop();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('is found at start: /healthz is unhealthy and /start refused, both saying why', async () => {
    const { locked, inner } = lockedTmp(0o700);
    const service = await startService({ TMPDIR: inner, BROWSER_POOL_SIZE: '1' });
    services.push(service);
    const { status, body } = await health(service);
    assert.equal(status, 503, JSON.stringify(body));
    assert.equal(body.status, 'unavailable');
    assert.equal(body.browsers.isolation.mode, 'unavailable');
    assert.match(String(body.reason), /instances cannot reach their folders/);
    assert.match(String(body.reason), new RegExp(`${locked} \\(mode 700\\) may not be entered by other users`));
    const refused = await refusedStart(service.wsUrl, { authorization: `Bearer ${service.createKey().token}` });
    assert.equal(refused.status, 503);
    assert.match(String(refused.body.error), /instances cannot reach their folders/);
    assert.doesNotMatch(String(refused.body.error), /try again shortly/);
  });

  it('is found when launches start failing later, and healthy again once one succeeds', async () => {
    const { locked, inner } = lockedTmp(0o755);
    const service = await startService({ TMPDIR: inner, BROWSER_POOL_SIZE: '0' });
    services.push(service);
    assert.equal((await health(service)).status, 200, 'healthy while instances reach their folders');
    const token = service.createKey({ maxInstances: 5 }).token;
    const started = await openStart(service.wsUrl, token);
    await closeStart(service.url, started);

    // The host changes under the service: no instance may enter its folders any more.
    chmodSync(locked, 0o700);
    const refusals: string[] = [];
    const failing = await eventually(
      async () => {
        const refused = await refusedStart(service.wsUrl, { authorization: `Bearer ${token}` }).catch(() => null);
        if (refused) refusals.push(`${refused.status} ${String(refused.body.error)}`);
        return health(service);
      },
      (h) => h.status === 503,
      60_000,
    );
    assert.equal(failing.status, 503, refusals.join('\n'));
    assert.match(String(failing.body.reason), /browser launches failed; the last one: .+/);
    const refused = await refusedStart(service.wsUrl, { authorization: `Bearer ${token}` });
    assert.equal(refused.status, 503);
    assert.match(String(refused.body.error), /this node cannot start browsers: the last \d+ browser launches failed/);

    chmodSync(locked, 0o755);
    const again = await openStart(service.wsUrl, token);
    await closeStart(service.url, again);
    assert.equal((await health(service)).status, 200, 'a launch succeeded: healthy again');
  });
});
