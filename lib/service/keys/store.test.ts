import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceTestData, serviceTestStore } from '../../../tests/helpers/service-data.ts';
import { authenticate } from './auth.ts';
import { bearerToken, parseKey } from './token.ts';

const store = () => serviceTestData({ ratePerMinute: 40, maxInstances: 5 }).keys;

describe(`KeyStore (${serviceTestStore})`, () => {
  it('issues high-entropy keys and stores only a hash', async () => {
    const keys = store();
    const a = await keys.create('a');
    const b = await keys.create('b', { ratePerMinute: 600, maxInstances: 2 }, { record: true });
    assert.match(a.token, /^psk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.token, b.token);
    assert.equal(a.key.ratePerMinute, 40);
    assert.deepEqual([b.key.ratePerMinute, b.key.maxInstances, b.key.record], [600, 2, true]);
    assert.equal((await keys.verify(a.token))?.id, a.key.id);
    assert.equal((await keys.verify(b.token))?.name, 'b');
    const oldestFirst = [a.key, b.key].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1));
    assert.deepEqual(
      (await keys.list()).map((k) => [k.id, k.record, k.revokedAt]),
      oldestFirst.map((k) => [k.id, k.record, null]),
      'listed oldest first, then by id',
    );
  });

  it('refuses wrong secrets, unknown ids, malformed and revoked keys', async () => {
    const keys = store();
    const { key, token } = await keys.create('k');
    const secret = parseKey(token)!.secret;
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    assert.equal(await keys.verify(flipped), null);
    assert.equal(await keys.verify(token.replace(key.id, '0123456789abcdef')), null);
    assert.equal(await keys.verify(secret), null);
    assert.equal(await keys.verify(''), null);
    assert.equal(await keys.verify(`${token} `), null);
    assert.equal(await keys.revoke(key.id), true);
    assert.equal(await keys.revoke(key.id), false, 'revoking twice reports no change');
    assert.equal(await keys.revoke('0123456789abcdef'), false, 'an unknown key is no change either');
    assert.equal(await keys.verify(token), null);
    assert.ok((await keys.get(key.id))?.revokedAt);
  });

  it('notes when a key was last used, at most once a minute', async () => {
    const keys = store();
    const { key, token } = await keys.create('k');
    assert.equal((await keys.get(key.id))?.lastUsedAt, null);
    await keys.verify(token);
    const first = (await keys.get(key.id))?.lastUsedAt?.getTime();
    assert.ok(first && first >= key.createdAt.getTime());
    await new Promise((resolve) => setTimeout(resolve, 5));
    await keys.verify(token);
    assert.equal((await keys.get(key.id))?.lastUsedAt?.getTime(), first, 'the second use within the minute writes nothing');
  });

  it('turns recording on and off, and says when there is no such key', async () => {
    const keys = store();
    const { key } = await keys.create('k');
    assert.equal(await keys.setRecord(key.id, true), true);
    assert.equal((await keys.get(key.id))?.record, true);
    assert.equal(await keys.setRecord(key.id, false), true);
    assert.equal((await keys.get(key.id))?.record, false);
    assert.equal(await keys.setRecord('0123456789abcdef', true), false);
  });

  it('changes the limits given and keeps the others; a page-action limit goes back to the default with null', async () => {
    const keys = store();
    const { key } = await keys.create('k', { ratePerMinute: 10, maxInstances: 2, actionsPerMinute: 7 });
    assert.equal(await keys.setLimits(key.id, { maxInstances: 5 }), true);
    let now = await keys.get(key.id);
    assert.deepEqual([now?.ratePerMinute, now?.maxInstances, now?.actionsPerMinute], [10, 5, 7]);
    assert.equal(await keys.setLimits(key.id, { ratePerMinute: 99, actionsPerMinute: null }), true);
    now = await keys.get(key.id);
    assert.deepEqual([now?.ratePerMinute, now?.maxInstances, now?.actionsPerMinute], [99, 5, null]);
    assert.equal(await keys.setLimits('0123456789abcdef', { maxInstances: 1 }), false);
    for (const bad of [{ maxInstances: 0 }, { ratePerMinute: 1.5 }, { actionsPerMinute: 1_000_001 }])
      await assert.rejects(keys.setLimits(key.id, bad), { status: 400 });
    now = await keys.get(key.id);
    assert.deepEqual([now?.ratePerMinute, now?.maxInstances, now?.actionsPerMinute], [99, 5, null], 'a refused change changes nothing');
  });

  it('validates names and limits as bad requests (400)', async () => {
    const keys = store();
    for (const [name, limits] of [
      ['  ', {}],
      ['x'.repeat(101), {}],
      ['x', { ratePerMinute: 0 }],
      ['x', { maxInstances: 1.5 }],
      ['a\u0000b', {}],
    ] as const) {
      await assert.rejects(keys.create(name, limits), { name: 'BadRequest', status: 400 }, JSON.stringify(name));
    }
    await assert.rejects(keys.create('a\u0000b'), /NUL/);
    assert.deepEqual(await keys.list(), [], 'nothing refused was stored');
  });

  it('authenticate() reads only well-formed Bearer headers', async () => {
    const keys = store();
    const { token } = await keys.create('k');
    assert.equal((await authenticate(keys, `Bearer ${token}`)).name, 'k');
    assert.equal((await authenticate(keys, `bearer   ${token}`)).name, 'k');
    for (const header of [undefined, '', 'Bearer', `Basic ${token}`, `Bearer ${token} extra`, `Token ${token}`]) {
      await assert.rejects(authenticate(keys, header), { name: 'Unauthorized' }, String(header));
    }
    assert.equal(bearerToken('Bearer a b'), null);
  });
});
