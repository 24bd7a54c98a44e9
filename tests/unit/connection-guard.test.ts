import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientOf } from '../../server/http/connection-guard.ts';

describe('clientOf: who a connection counts against', () => {
  it('counts an IPv4 client by its address, however it arrives', () => {
    assert.equal(clientOf('203.0.113.7'), '203.0.113.7');
    assert.equal(clientOf('::ffff:203.0.113.7'), '203.0.113.7');
    assert.notEqual(clientOf('203.0.113.7'), clientOf('203.0.113.8'));
  });

  it('counts an IPv6 client by its /64, so spreading over addresses gains nothing', () => {
    assert.equal(clientOf('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(clientOf('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.notEqual(clientOf('2001:db8:1:2::1'), clientOf('2001:db8:1:3::1'));
    assert.equal(clientOf('::1'), '0:0:0:0::/64');
  });

  it('keeps what is not an address as it is', () => {
    assert.equal(clientOf(''), '');
  });
});
