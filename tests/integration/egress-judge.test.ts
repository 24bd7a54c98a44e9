import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStart, type StartedBrowser } from '../helpers/browser.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * `GET /v0/browser/egress?host=`: how the egress proxy judges a host for one of the key's browsers,
 * which the portal asks when a secure connection failed and Chromium does not say why.
 */
describe('GET /v0/browser/egress', () => {
  let service: ServiceProcess;
  let started: StartedBrowser;
  let otherKey: string;

  before(async () => {
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    started = await openStart(service.wsUrl, service.createKey().token);
    otherKey = service.createKey().token;
  });
  after(async () => {
    started?.socket.close();
    await service?.stop();
  });

  const judge = (query: string, headers: Record<string, string> = started.headers) =>
    fetch(`${service.url}/v0/browser/egress${query}`, { headers });

  it('says a private address is refused by the policy, a name that does not resolve is unresolved, and an allowed one is allowed', async () => {
    let res = await judge('?host=10.255.255.1');
    assert.equal(res.status, 200);
    const denied = (await res.json()) as { verdict: string; detail: string };
    assert.equal(denied.verdict, 'denied-address');
    assert.match(denied.detail, /10\.255\.255\.1 is in 10\.0\.0\.0\/8/);

    res = await judge('?host=nowhere.invalid');
    assert.deepEqual(await res.json(), { host: 'nowhere.invalid', verdict: 'unresolved', detail: 'did not resolve (ENOTFOUND)' });

    // Allowed by the operator: a failed connection there is the network's, not the policy's.
    res = await judge('?host=127.0.0.1');
    assert.deepEqual(await res.json(), { host: '127.0.0.1', verdict: 'allowed', detail: '127.0.0.1' });

    res = await judge(`?host=${encodeURIComponent('[::1]')}`);
    assert.equal(((await res.json()) as { verdict: string }).verdict, 'denied-address');
  });

  it('refuses a missing, repeated or malformed host and unknown parameters with the field named', async () => {
    for (const query of [
      '',
      '?host=',
      '?host=a&host=b',
      '?host=example.com:443',
      '?host=exa%20mple.com',
      `?host=${'a'.repeat(256)}`,
      '?host=a&x=1',
    ]) {
      const res = await judge(query);
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { issues?: { field: string }[] };
      assert.ok(body.issues?.[0]?.field, `${query}: ${JSON.stringify(body)}`);
    }
  });

  it("answers only the key that holds the browser: another key's is not found, no key is refused", async () => {
    assert.equal((await judge('?host=10.255.255.1', { authorization: `Bearer ${otherKey}`, 'x-browser-id': started.id })).status, 404);
    assert.equal((await judge('?host=10.255.255.1', { 'x-browser-id': started.id })).status, 401);
  });
});
