import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { debuggerUrl, eventually, instancesDir, openStart, profileDirs, type StartedBrowser } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** The CDP proxy keeps clients off the service host's files, and otherwise stays out of the way. */
describe('CDP commands that would reach the service host', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let started: StartedBrowser;
  let cdp: RawCdp;
  let sessionId: string;
  const elsewhere = mkdtempSync(join(tmpdir(), 'periscope-client-downloads-'));

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    started = await openStart(service.wsUrl, service.createKey().token);
    cdp = await RawCdp.connect(await debuggerUrl(service.url, started.headers), started.headers);
    const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    ({ sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }));
  });
  // Each step guarded: when `before` failed half-way, the service must still stop (else this file never ends).
  after(async () => {
    await cdp?.close();
    started?.socket.close();
    await started?.closed;
    await pages?.close();
    await service?.stop();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  const refused = async (method: string, params: Record<string, unknown>, session?: string) => {
    await assert.rejects(cdp.send(method, params, session), (err: Error) => {
      assert.match(err.message, /Periscope: /, `${method}: ${err.message}`);
      return true;
    });
  };

  it('refuses host files, extensions and remote targets, answering each command with a CDP error', async () => {
    await refused('Target.createTarget', { url: 'file:///etc/passwd' });
    await refused('Page.navigate', { url: 'FILE:///etc/hostname' }, sessionId);
    await refused('Page.navigate', { url: 'view-source:file:///etc/hostname' }, sessionId);
    await refused('Page.navigate', { url: 'chrome://version' }, sessionId);
    await refused(
      'Network.loadNetworkResource',
      { frameId: 'x', url: 'file:///etc/passwd', options: { disableCache: true, includeCredentials: false } },
      sessionId,
    );
    await refused('DOM.setFileInputFiles', { files: ['/etc/passwd'], backendNodeId: 1 }, sessionId);
    await refused('Extensions.loadUnpacked', { path: '/tmp' });
    await refused('Target.setRemoteLocations', { locations: [{ host: '10.0.0.1', port: 9222 }] });
    await refused(
      'Input.dispatchDragEvent',
      { type: 'drop', x: 1, y: 1, data: { items: [], files: ['/etc/passwd'], dragOperationsMask: 1 } },
      sessionId,
    );
    const url = await cdp.send<{ result: { value: string } }>(
      'Runtime.evaluate',
      { expression: 'location.href', returnByValue: true },
      sessionId,
    );
    assert.equal(url.result.value, 'about:blank', 'nothing was opened');
  });

  it('keeps the connection whole around a refusal: big messages and normal commands still flow', async () => {
    const big = cdp.send<{ result: { value: string } }>(
      'Runtime.evaluate',
      { expression: "'x'.repeat(4 * 1024 * 1024)", returnByValue: true },
      sessionId,
    );
    const bad = cdp.send('Page.navigate', { url: 'file:///etc/passwd' }, sessionId).catch((err: Error) => err.message);
    const ok = cdp.send<{ result: { value: number } }>('Runtime.evaluate', { expression: '6*7' }, sessionId);
    assert.equal((await big).result.value.length, 4 * 1024 * 1024);
    assert.match(String(await bad), /Periscope/);
    assert.equal((await ok).result.value, 42);
    const nav = await cdp.send<{ errorText?: string }>('Page.navigate', { url: pages.url }, sessionId);
    assert.equal(nav.errorText, undefined, 'web addresses still open');
  });

  it("keeps downloads inside the instance's own downloads folder, whatever path the client names", async () => {
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: elsewhere, eventsEnabled: true });
    const navigated = await cdp
      .send<{ isDownload?: boolean; errorText?: string }>('Page.navigate', { url: `${pages.url}download` }, sessionId)
      .then(
        (r) => `answered ${JSON.stringify(r)}`,
        (err: Error) => `failed: ${err.message}`,
      );
    // What the service promises is the file, so the file is what is waited for. (Chromium's download
    // events were the signal once: on a loaded CI machine the wait ran out twice with none seen, and
    // the file was never looked at. Should it fail again, the message says what Chromium answered.)
    const [profile] = profileDirs(service.dataDir);
    assert.ok(profile);
    const downloads = join(instancesDir(service.dataDir), profile, 'downloads');
    const saved = await eventually(
      () => readdirSync(downloads).map((name) => `${name}: ${readIfThere(join(downloads, name))}`),
      (files) => files.includes('report.txt: downloaded content'),
      20_000, // a bound, not a figure: a loaded 2-core CI machine once needed more than 10 s
    );
    const seen = cdp.events.filter((e) => e.method.startsWith('Browser.download')).map((e) => `${e.method} ${JSON.stringify(e.params)}`);
    assert.deepEqual(
      saved,
      ['report.txt: downloaded content'],
      `the download landed in the instance's folder; Page.navigate ${navigated}; download events: ${seen.join('; ') || 'none'}`,
    );
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing was written where the client asked');
  });
});

/** A file's text, or a note that it went (a partial download is renamed when it completes). */
function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '(gone)';
  }
}
