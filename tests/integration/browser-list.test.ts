import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { holdBrowser, type HeldBrowser } from '#portal/service-client/browser.ts';
import type { BrowserView } from '../../server/service/routes/browsers.ts';
import { eventually } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** GET /v0/browsers and DELETE /v0/browsers/{id} (docs/api.md, "Listing and stopping a key's browsers"), on real instances. */
describe("a key's browsers, listed and stopped through the API", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-list-'));
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let mine: string;
  let theirs: string;

  const list = async (token: string, query = '') => {
    const r = await fetch(`${service.url}/v0/browsers${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, body: (await r.json()) as { browsers: BrowserView[]; code?: string } };
  };
  const stop = (token: string, id: string) =>
    fetch(`${service.url}/v0/browsers/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    service = await startService({ DATA_DIR: dataDir, BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    mine = service.createKey({ name: 'mine' }).token;
    theirs = service.createKey({ name: 'theirs' }).token;
  });
  after(async () => {
    await pages?.close();
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists a live browser with its tab count and the page in use, to its own key only', async () => {
    const held = await holdBrowser(service.url, mine);
    const cdp = await RawCdp.connect(held.debuggerUrl, held.headers);
    try {
      await cdp.send('Target.createTarget', { url: `${pages.url}?first` });
      await eventually(
        () => list(mine),
        (r) => r.body.browsers[0]?.page?.url === `${pages.url}?first`,
      );
      await cdp.send('Target.createTarget', { url: `${pages.url}live` });
      const [listed] = (
        await eventually(
          () => list(mine),
          (r) => r.body.browsers[0]?.page?.title === 'Live test page',
        )
      ).body.browsers;
      assert.equal(listed?.id, held.id);
      assert.equal(listed?.status, 'live');
      assert.equal(listed?.tabs, 3, 'the first blank tab and the two opened');
      assert.deepEqual(listed?.page, { url: `${pages.url}live`, title: 'Live test page' });
      assert.equal(listed?.endedAt, null);
      assert.ok(Date.now() - Date.parse(listed?.startedAt ?? '') < 60_000);
      assert.deepEqual((await list(theirs)).body.browsers, [], "another key's browsers are not listed");
      assert.equal((await list(mine, '?status=ended')).body.browsers.length, 0);
      assert.equal((await list(mine, '?status=live')).body.browsers.length, 1);
    } finally {
      await cdp.close();
      held.release();
    }
    const ended = await eventually(
      async () => (await list(mine)).body.browsers.find((b) => b.id === held.id),
      (b) => b?.status === 'ended',
    );
    assert.equal(ended?.endReason, 'client-closed');
    assert.deepEqual(ended?.page, { url: `${pages.url}live`, title: 'Live test page' }, 'the last page is kept');
    assert.ok(ended?.endedAt && Date.parse(ended.endedAt) >= Date.parse(ended.startedAt));
  });

  it('stops a browser for its own key only: the holder hears 4410', async () => {
    const held: HeldBrowser = await holdBrowser(service.url, mine);
    assert.equal((await stop(theirs, held.id)).status, 404, 'another key cannot stop it, nor learn that it exists');
    assert.equal((await stop(mine, 'br_short')).status, 400);
    assert.equal((await stop(mine, held.id)).status, 204);
    assert.deepEqual(await held.ended, { code: 4410, reason: 'stopped through the API' });
    const listed = (await list(mine)).body.browsers.find((b) => b.id === held.id);
    assert.equal(listed?.status, 'ended');
    assert.equal(listed?.endReason, 'stopped');
    assert.equal((await stop(mine, held.id)).status, 404, 'an ended browser is not found');
  });

  it('refuses a missing key and a bad query with the documented errors', async () => {
    const none = await fetch(`${service.url}/v0/browsers`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { code: string }).code, 'unauthorized');
    for (const query of ['?status=dead', '?limit=5']) {
      const r = await list(mine, query);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.code, 'bad_request', query);
    }
  });

  it("says how a killed predecessor's browsers ended, after a restart", async () => {
    const held = await holdBrowser(service.url, mine);
    await service.stop('SIGKILL');
    await held.ended;
    service = await startService({ DATA_DIR: dataDir, BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    const listed = (await list(mine)).body.browsers.find((b) => b.id === held.id);
    assert.equal(listed?.status, 'ended');
    assert.equal(listed?.endReason, 'service-restarted');
  });
});
