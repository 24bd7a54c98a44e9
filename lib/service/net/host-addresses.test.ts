import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { describe, it } from 'node:test';
import { addressKey, fixedHostAddresses, InterfaceAddresses, parseAddress, systemInterfaces, type IpAddress } from './host-addresses.ts';

function ip(text: string): IpAddress {
  const parsed = parseAddress(text);
  assert.ok(parsed, text);
  return parsed;
}

describe('parseAddress', () => {
  it('reads IPv4, IPv6, brackets and zone ids', () => {
    assert.equal(ip('8.8.8.8').toString(), '8.8.8.8');
    assert.equal(ip('[2606:4700::1111]').toString(), '2606:4700::1111');
    assert.equal(ip('fe80::1%eth0').toString(), 'fe80::1');
    assert.equal(ip('[fe80::1%25eth0.5]').toString(), 'fe80::1');
  });

  it('keeps ::a.b.c.d IPv4-compatible, as the socket layer reads it', () => {
    assert.equal(addressKey(ip('::127.0.0.1')), '0:0:0:0:0:0:7f00:1');
    assert.equal(addressKey(ip('::ffff:127.0.0.1')), '127.0.0.1');
    assert.equal(addressKey(ip('1:2:3:4:5:6:1.2.3.4')), '1:2:3:4:5:6:102:304');
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      'localhost',
      '127.1',
      '0x7f000001',
      '2130706433',
      '017.0.0.1',
      '1.2.3.4%eth0',
      'fe80::1%',
      '[1.2.3.4',
      '::1]',
      '::ffff:1.2.3',
      '::ffff:01.2.3.4',
    ]) {
      assert.equal(parseAddress(text), null, JSON.stringify(text));
    }
  });
});

describe('addressKey', () => {
  it('spells each address one way', () => {
    assert.equal(addressKey(ip('::FFFF:0808:0808')), '8.8.8.8');
    assert.equal(addressKey(ip('::ffff:8.8.8.8')), '8.8.8.8');
    assert.equal(addressKey(ip('2606:4700:0::1111')), addressKey(ip('2606:4700:0000:0000:0:0:0:1111')));
  });
});

describe('host addresses', () => {
  it('a fixed set matches every spelling of its addresses', () => {
    const host = fixedHostAddresses(['8.8.4.4', '2606:4700::1001', 'fe80::1%eth0', 'not an address']);
    assert.ok(host.has(ip('8.8.4.4')));
    assert.ok(host.has(ip('::ffff:808:404')));
    assert.ok(host.has(ip('2606:4700:0:0::1001')));
    assert.ok(host.has(ip('fe80::1%eth1')));
    assert.ok(!host.has(ip('8.8.8.8')));
  });

  it('reads the interfaces lazily, and again only when stale', () => {
    let now = 1_000;
    let reads = 0;
    let addresses = ['192.0.2.1'];
    const host = new InterfaceAddresses({ read: () => (reads++, addresses), maxAgeMs: 3_000, now: () => now });
    assert.equal(reads, 0);
    assert.ok(host.has(ip('192.0.2.1')));
    addresses = ['192.0.2.2'];
    now += 2_999;
    assert.ok(host.has(ip('192.0.2.1')));
    assert.equal(reads, 1);
    now += 1;
    assert.ok(!host.has(ip('192.0.2.1')));
    assert.ok(host.has(ip('192.0.2.2')));
    assert.equal(reads, 2);
  });

  it('keeps the last good reading when a reading fails', () => {
    let now = 0;
    let fail = false;
    const host = new InterfaceAddresses({
      read: () => {
        if (fail) throw new Error('getifaddrs failed');
        return ['192.0.2.1'];
      },
      maxAgeMs: 10,
      now: () => now,
    });
    assert.ok(host.has(ip('192.0.2.1')));
    fail = true;
    now = 10;
    assert.ok(host.has(ip('192.0.2.1')));
  });

  it('the system reader lists every interface address, of every family', () => {
    const expected = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
    assert.deepEqual([...systemInterfaces()], expected);
    const host = new InterfaceAddresses();
    for (const address of expected) assert.ok(host.has(ip(address)), address);
  });
});
