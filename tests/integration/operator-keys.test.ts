import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadPortalConfig } from '#portal/config.ts';
import { addKey, listKeys, revokeKey } from '#portal/keys/vault.ts';
import { createPortal, type Portal } from '#portal/runtime.ts';
import { createTeam, setTeamRecording } from '#portal/teams/teams.ts';
import { OPERATOR_KEYS_PATH } from '#shared/protocol/operator.ts';
import { account } from '../helpers/portal-doubles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * The service's operator interface for keys (docs/api.md, "Operator interface"; decision 0107),
 * and a portal that is not beside the service issuing, listing and revoking keys through it.
 */
const OPERATOR_TOKEN = randomBytes(32).toString('base64url');

describe('the operator interface for keys', () => {
  let service: ServiceProcess;
  let tenant: string;
  const call = (method: string, path: string, o: { token?: string | null; body?: unknown } = {}) =>
    fetch(`${service.url}${OPERATOR_KEYS_PATH}${path}`, {
      method,
      headers: {
        ...(o.token === null ? {} : { authorization: `Bearer ${o.token ?? OPERATOR_TOKEN}` }),
        ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
    });

  before(async () => {
    service = await startService({ SERVICE_OPERATOR_TOKEN: OPERATOR_TOKEN, BROWSER_POOL_SIZE: '0' });
    tenant = service.createKey({ name: 'tenant' }).token;
  });
  after(() => service?.stop());

  it('issues, lists, records and revokes keys as `npm run keys` does, sharing its store', async () => {
    const created = await call('POST', '', { body: { name: 'robot', ratePerMinute: 600, maxInstances: 3, actionsPerMinute: 90 } });
    assert.equal(created.status, 201);
    const { key, token } = (await created.json()) as { key: Record<string, unknown>; token: string };
    assert.match(token, /^psk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      [key.id, key.name, key.ratePerMinute, key.maxInstances, key.actionsPerMinute, key.record, key.revokedAt],
      [token.split('_')[1], 'robot', 600, 3, 90, false, null],
    );
    assert.equal((await fetch(`${service.url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    assert.match(service.keysCli(['list']).stdout, new RegExp(`^${key.id}\\trobot\\t600\\t3\\t90\\toff\\t`, 'm'), 'the CLI sees it');

    const listed = (await (await call('GET', '')).json()) as { keys: { id: string; name: string }[] };
    assert.deepEqual(listed.keys.map((k) => k.name).sort(), ['robot', 'tenant']);
    assert.ok(!JSON.stringify(listed).includes(token.slice(-43)), 'a list never holds a secret');
    const one = (await (await call('GET', `/${key.id}`)).json()) as { key: { lastUsedAt: string | null } };
    assert.ok(one.key.lastUsedAt, 'its use is seen');

    const recorded = (await (await call('PATCH', `/${key.id}`, { body: { record: true } })).json()) as { key: { record: boolean } };
    assert.equal(recorded.key.record, true);

    const revoked = await call('DELETE', `/${key.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(((await revoked.json()) as { revoked: boolean }).revoked, true);
    assert.equal((await fetch(`${service.url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
    assert.equal(((await (await call('DELETE', `/${key.id}`)).json()) as { revoked: boolean }).revoked, false, 'already revoked');
  });

  it("changes a key's limits, which hold from its next request, and keeps what was not given", async () => {
    const { key, token } = (await (
      await call('POST', '', { body: { name: 'limited', ratePerMinute: 600, actionsPerMinute: 90 } })
    ).json()) as {
      key: { id: string };
      token: string;
    };
    const search = () =>
      fetch(`${service.url}/v0/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'anything' }),
      });
    assert.equal((await search()).status, 200);
    const changed = await call('PATCH', `/${key.id}`, { body: { ratePerMinute: 2, actionsPerMinute: null } });
    assert.equal(changed.status, 200);
    const now = ((await changed.json()) as { key: Record<string, unknown> }).key;
    assert.deepEqual([now.ratePerMinute, now.actionsPerMinute, now.record, now.name], [2, null, false, 'limited']);
    // The limit is now 2 a minute, one of which the search before the change used: the next passes, the one after is refused.
    assert.equal((await search()).status, 200);
    assert.equal((await search()).status, 429);
    assert.match(service.keysCli(['list']).stdout, new RegExp(`^${key.id}\\tlimited\\t2\\t`, 'm'), 'the CLI sees it');
  });

  it('refuses no token, a wrong token and a tenant key on every route, where the operator token passes', async () => {
    const id = tenant.split('_')[1] as string;
    const routes: [string, string, unknown?][] = [
      ['GET', ''],
      ['POST', '', { name: 'sneaky' }],
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { record: true }],
      ['DELETE', `/${id}`],
    ];
    for (const [method, path, body] of routes) {
      for (const token of [null, 'wrong', `${OPERATOR_TOKEN}x`, tenant]) {
        const res = await call(method, path, { token, body });
        assert.equal(res.status, 401, `${method} ${path} with ${token === tenant ? 'a tenant key' : String(token)}`);
        assert.match(((await res.json()) as { error: string }).error, /SERVICE_OPERATOR_TOKEN/);
      }
    }
    assert.doesNotMatch(service.keysCli(['list']).stdout, /sneaky/, 'nothing was created');
    assert.match(service.keysCli(['list']).stdout, new RegExp(`^${id}\\t.*\\toff\\t.*\\tlive$`, 'm'), 'nothing was changed');
    // The same requests with the operator token pass: the refusals above were the token's.
    for (const [method, path, body] of routes) assert.ok((await call(method, path, { body })).ok, `${method} ${path}`);
  });

  it('refuses bad input with a clear error', async () => {
    for (const body of [
      {},
      { name: ' ' },
      { name: 'x'.repeat(101) },
      { name: 'a\u0000b' },
      { name: 'x', ratePerMinute: 0 },
      { name: 'x', maxInstances: 1.5 },
      { name: 'x', actionsPerMinute: '9' },
      { name: 'x', record: 'yes' },
      { name: 'x', owner: 'me' },
      'not json',
      '[1]',
    ]) {
      const res = await call('POST', '', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    }
    assert.equal((await call('POST', '', { body: JSON.stringify({ name: 'x'.repeat(5000) }) })).status, 413);
    assert.equal((await call('PATCH', `/${'0'.repeat(16)}`, { body: { record: 'on' } })).status, 400);
    for (const body of [{}, { maxInstances: 0 }, { ratePerMinute: 2.5 }, { actionsPerMinute: 'none' }, { name: 'renamed' }])
      assert.equal((await call('PATCH', `/${'0'.repeat(16)}`, { body })).status, 400, JSON.stringify(body));
    assert.equal((await call('GET', '/not-an-id')).status, 400);
    assert.equal((await call('GET', `/${'0'.repeat(16)}`)).status, 404);
    assert.equal((await call('PATCH', `/${'0'.repeat(16)}`, { body: { record: true } })).status, 404);
    assert.equal((await call('DELETE', `/${'0'.repeat(16)}`)).status, 404);
  });

  it('is off on a service without an operator token', async () => {
    const off = await startService({ BROWSER_POOL_SIZE: '0' });
    try {
      const res = await fetch(`${off.url}${OPERATOR_KEYS_PATH}`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      assert.equal(res.status, 404);
      assert.match(((await res.json()) as { error: string }).error, /operator interface is off/);
    } finally {
      await off.stop();
    }
  });

  describe('a portal pointed at this service (SERVICE_URL) with the operator token', () => {
    let dataDir: string;
    let portal: Portal;
    let ann: { userId: string };
    let teamId: string;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'periscope-remote-portal-'));
      portal = await createPortal(
        loadPortalConfig({ DATA_DIR: dataDir, SERVICE_URL: service.url, SERVICE_OPERATOR_TOKEN: OPERATOR_TOKEN, LOG_LEVEL: 'error' }),
      );
      ann = await account(portal.data, 'Ann');
      teamId = (await createTeam(portal.data, ann, { name: 'Remote crew' })).id;
    });
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    it('creates, lists, records and revokes keys at the service', async () => {
      assert.equal(portal.vault.issuer.available, true);
      const { key, token } = await addKey(portal.vault, ann, teamId, { mode: 'create', name: 'Deploy bot' });
      assert.equal(key.source, 'issued');
      const serviceId = token.split('_')[1] as string;
      const atService = async () => ((await (await call('GET', `/${serviceId}`)).json()) as { key: Record<string, unknown> }).key;
      assert.equal((await atService()).name, `Deploy bot (team ${teamId})`);
      assert.equal((await fetch(`${service.url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } })).status, 200);

      const listed = await listKeys(portal.vault, ann, teamId);
      assert.deepEqual(
        listed.map((k) => k.name),
        ['Deploy bot'],
      );
      assert.ok(listed[0]?.lastUsedAt, "the service's use of the key shows in the portal");

      assert.equal((await setTeamRecording(portal.vault, ann, teamId, { record: true })).changed, 1);
      assert.equal((await atService()).record, true);

      await revokeKey(portal.vault, ann, teamId, key.id);
      assert.ok((await atService()).revokedAt, 'revoked at the service');
      assert.equal((await fetch(`${service.url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
    });

    it('cannot issue keys without the token, and says why', async () => {
      const other = mkdtempSync(join(tmpdir(), 'periscope-remote-portal-'));
      try {
        const plain = await createPortal(loadPortalConfig({ DATA_DIR: other, SERVICE_URL: service.url, LOG_LEVEL: 'error' }));
        const bob = await account(plain.data, 'Bob');
        const team = (await createTeam(plain.data, bob, { name: 'No token' })).id;
        await assert.rejects(addKey(plain.vault, bob, team, { mode: 'create', name: 'K' }), /no operator token for the service/);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });
  });
});
