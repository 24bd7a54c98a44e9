import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '#shared/sqlite.ts';
import { serviceMigrations } from '../migrations.ts';
import { authenticate } from './auth.ts';
import { KeyStore } from './store.ts';
import { bearerToken, parseKey } from './token.ts';

const store = () => new KeyStore(openDatabase(':memory:', serviceMigrations), { ratePerMinute: 40, maxInstances: 5 });

describe('KeyStore', () => {
  it('issues high-entropy keys and stores only a hash', () => {
    const keys = store();
    const a = keys.create('a');
    const b = keys.create('b', { ratePerMinute: 600, maxInstances: 2 });
    assert.match(a.token, /^psk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.token, b.token);
    assert.equal(a.key.ratePerMinute, 40);
    assert.deepEqual([b.key.ratePerMinute, b.key.maxInstances], [600, 2]);
    assert.equal(keys.verify(a.token)?.id, a.key.id);
    assert.equal(keys.verify(b.token)?.name, 'b');
  });

  it('refuses wrong secrets, unknown ids, malformed and revoked keys', () => {
    const keys = store();
    const { key, token } = keys.create('k');
    const secret = parseKey(token)!.secret;
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    assert.equal(keys.verify(flipped), null);
    assert.equal(keys.verify(token.replace(key.id, '0123456789abcdef')), null);
    assert.equal(keys.verify(secret), null);
    assert.equal(keys.verify(''), null);
    assert.equal(keys.verify(`${token} `), null);
    assert.equal(keys.revoke(key.id), true);
    assert.equal(keys.revoke(key.id), false, 'revoking twice reports no change');
    assert.equal(keys.verify(token), null);
    assert.ok(keys.get(key.id)?.revokedAt);
  });

  it('validates names and limits', () => {
    const keys = store();
    assert.throws(() => keys.create('  '), RangeError);
    assert.throws(() => keys.create('x'.repeat(101)), RangeError);
    assert.throws(() => keys.create('x', { ratePerMinute: 0 }), RangeError);
    assert.throws(() => keys.create('x', { maxInstances: 1.5 }), RangeError);
  });

  it('authenticate() reads only well-formed Bearer headers', () => {
    const keys = store();
    const { token } = keys.create('k');
    assert.equal(authenticate(keys, `Bearer ${token}`).name, 'k');
    assert.equal(authenticate(keys, `bearer   ${token}`).name, 'k');
    for (const header of [undefined, '', 'Bearer', `Basic ${token}`, `Bearer ${token} extra`, `Token ${token}`]) {
      assert.throws(() => authenticate(keys, header), { name: 'Unauthorized' }, String(header));
    }
    assert.equal(bearerToken('Bearer a b'), null);
  });
});
