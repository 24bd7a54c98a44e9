import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { debuggerUrl, eventually, openStart, profileDirs, type StartedBrowser } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const MB = 1024 * 1024;
const LIMIT_MB = 64;

/** A tenant that downloads without end must not fill the host's disk: past BROWSER_DISK_LIMIT_MB its instance ends with 4413. */
describe('the disk limit of an instance', () => {
  let service: ServiceProcess;
  let files: Server;
  let filesUrl: string;
  let started: StartedBrowser;
  let cdp: RawCdp;
  let sessionId: string;
  const chunk = randomBytes(MB);

  before(async () => {
    service = await startService({
      BROWSER_POOL_SIZE: '0',
      BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
      BROWSER_DISK_LIMIT_MB: String(LIMIT_MB),
      BROWSER_DISK_CHECK_SECONDS: '1',
    });
    // `/big?mb=N`: N MiB of incompressible bytes, as an attachment.
    files = createServer((req, res) => {
      const mb = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('mb') ?? 1);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': mb * MB,
        'content-disposition': `attachment; filename="big-${mb}.bin"`,
      });
      let sent = 0;
      const more = () => {
        while (sent < mb && res.write(chunk)) sent++;
        if (sent >= mb) res.end();
        else
          res.once('drain', () => {
            sent++;
            more();
          });
      };
      more();
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', () => resolve()));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    started = await openStart(service.wsUrl, service.createKey().token);
    cdp = await RawCdp.connect(await debuggerUrl(service.url, started.headers), started.headers);
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp', eventsEnabled: true });
    const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    ({ sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }));
  });
  after(async () => {
    await cdp?.close();
    started?.socket.close();
    files?.closeAllConnections();
    await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
    await service?.stop();
  });

  const downloads = async () => {
    const res = await fetch(`${service.url}/v0/browser/downloads`, { headers: started.headers });
    return res.ok ? ((await res.json()) as { files: { name: string; size: number; complete?: boolean }[] }).files : null;
  };

  it('counts what lands: a download under the limit is kept, and the instance lives on', async () => {
    await cdp.send('Page.navigate', { url: `${filesUrl}/big?mb=8` }, sessionId).catch(() => null);
    const listed = await eventually(downloads, (f) => Boolean(f?.some((x) => x.size === 8 * MB)), 30_000);
    assert.ok(
      listed?.some((x) => x.size === 8 * MB),
      `the 8 MiB download is in the instance's folder: ${JSON.stringify(listed)}`,
    );
    await new Promise((r) => setTimeout(r, 2500)); // two checks pass over it
    assert.equal(started.socket.readyState, started.socket.OPEN, 'under the limit nothing happens');
  });

  it('ends the instance with 4413 once its files pass the limit, and removes them', async () => {
    const before = profileDirs(service.dataDir).length;
    assert.ok(before >= 1);
    await cdp.send('Page.navigate', { url: `${filesUrl}/big?mb=${LIMIT_MB + 16}` }, sessionId).catch(() => null);
    const end = await Promise.race([started.closed, new Promise<null>((r) => setTimeout(() => r(null), 60_000))]);
    assert.deepEqual(end, { code: 4413, reason: 'instance disk limit reached' });
    assert.deepEqual(
      await eventually(
        () => profileDirs(service.dataDir),
        (d) => d.length === before - 1,
        10_000,
      ),
      [],
      'the folder went with it',
    );
    assert.ok(
      service.logs.some((l) => l.msg === 'instance over its disk limit; ending it'),
      'the operator sees why',
    );
  });
});
