import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { InvalidRequestError, Periscope } from '../../clients/typescript/src/index.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** `/start`'s options (docs/api.md, section 1), through the client library as users send them. */
describe('/start options', () => {
  let service: ServiceProcess;
  let periscope: Periscope;
  let key: string;

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', BROWSER_MAX_LIFETIME_SECONDS: '60' });
    key = service.createKey({ name: 'options' }).token;
    periscope = new Periscope({ apiKey: key, baseUrl: service.url });
  });
  after(() => service?.stop());

  it('timeout=SECONDS ends the browser with 4408 (lifetime) when its own lifetime is up', async () => {
    const browser = await periscope.browsers.start({ timeout: 2 });
    assert.equal(browser.live, true);
    const end = await browser.ended;
    assert.deepEqual(end, { reason: 'lifetime', code: 4408, message: 'instance lifetime limit reached' });
    const listed = await periscope.browsers.list({ status: 'ended' });
    assert.equal(listed.find((b) => b.id === browser.id)?.endReason, 'lifetime');
  });

  it('refuses a timeout that is not a whole number of seconds within the operator’s maximum, naming it', async () => {
    for (const timeout of ['61', '0', '1.5', 'soon', '']) {
      const err = await periscope.browsers.start({ params: { timeout } }).catch((e: unknown) => e);
      assert.ok(err instanceof InvalidRequestError, `${timeout}: ${String(err)}`);
      assert.equal(err.field, 'timeout');
      assert.match(err.issues[0]?.message ?? '', /from 1 to 60/);
    }
    const bad = new Periscope({ apiKey: 'psk_0000000000000000_x', baseUrl: service.url });
    const unauthorised = await bad.browsers.start({ timeout: 999 }).catch((e: unknown) => e);
    assert.equal((unauthorised as { status?: number }).status, 401, 'the key is checked before the options');

    // Given twice: which one was meant cannot be told.
    const socket = new WebSocket(`${service.wsUrl}/start?timeout=5&timeout=6`, { headers: { authorization: `Bearer ${key}` } });
    const [status, body] = await new Promise<[number, string]>((resolve) =>
      socket.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve([res.statusCode ?? 0, text]));
      }),
    );
    assert.equal(status, 400);
    assert.deepEqual((JSON.parse(body) as { issues: unknown[] }).issues, [{ field: 'timeout', message: 'must be given once' }]);
  });

  it('ignores options it does not know, so that clients may send newer ones', async () => {
    const browser = await periscope.browsers.start({ params: { 'a-later-option': 'yes' } });
    assert.equal(browser.live, true);
    await browser.stop();
  });
});
