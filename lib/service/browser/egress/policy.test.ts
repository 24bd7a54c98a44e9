import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { parseCidrList } from '../../net/cidr.ts';
import { fixedHostAddresses, InterfaceAddresses, systemInterfaces } from '../../net/host-addresses.ts';
import { EgressPolicy } from './policy.ts';

/** No host interface addresses, so the tables alone decide. */
const noHost = fixedHostAddresses([]);

function refused(policy: EgressPolicy, address: string): string {
  const verdict = policy.check(address);
  assert.equal(verdict.allowed, false, `${address} should be refused`);
  return verdict.allowed ? '' : verdict.reason;
}

describe('EgressPolicy', () => {
  const policy = new EgressPolicy([], noHost);

  it('refuses loopback, private, link-local, metadata and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.10',
      '169.254.169.254',
      '168.63.129.16',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::5',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
    ]) {
      refused(policy, address);
    }
  });

  it('allows public addresses, including ones next to the blocked ranges', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '172.15.255.255',
      '100.128.0.1',
      '168.63.129.17',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      assert.deepEqual(policy.check(address), { allowed: true }, address);
    }
  });

  // [address inside, the block the reason must name, address just outside or null]
  const ipv4: [string, string, string | null][] = [
    ['0.1.2.3', '0.0.0.0/8', '1.0.0.0'],
    ['0.0.0.0', '0.0.0.0/32', null],
    ['10.255.255.255', '10.0.0.0/8', '11.0.0.0'],
    ['100.64.0.1', '100.64.0.0/10', '100.63.255.255'],
    ['100.127.255.255', '100.64.0.0/10', '100.128.0.0'],
    ['127.0.0.1', '127.0.0.0/8', '128.0.0.1'],
    ['169.254.169.254', '169.254.0.0/16', '169.255.0.1'],
    ['172.16.0.1', '172.16.0.0/12', '172.15.255.255'],
    ['172.31.255.255', '172.16.0.0/12', '172.32.0.0'],
    ['192.0.0.192', '192.0.0.192/32', '192.0.1.0'],
    ['192.0.0.100', '192.0.0.0/24', '191.255.255.255'],
    ['192.0.0.8', '192.0.0.8/32', null],
    ['192.0.0.170', '192.0.0.170/31', null],
    ['192.0.2.1', '192.0.2.0/24', '192.0.3.0'],
    ['192.31.196.1', '192.31.196.0/24', '192.31.197.1'],
    ['192.52.193.1', '192.52.193.0/24', '192.52.194.1'],
    ['192.88.99.1', '192.88.99.0/24', '192.88.100.1'],
    ['192.168.1.1', '192.168.0.0/16', '192.169.0.1'],
    ['192.175.48.1', '192.175.48.0/24', '192.175.49.1'],
    ['198.18.0.1', '198.18.0.0/15', '198.17.255.255'],
    ['198.19.255.255', '198.18.0.0/15', '198.20.0.0'],
    ['198.51.100.7', '198.51.100.0/24', '198.51.101.0'],
    ['203.0.113.9', '203.0.113.0/24', '203.0.114.0'],
    ['224.0.0.1', '224.0.0.0/4', '223.255.255.255'],
    ['239.255.255.250', '224.0.0.0/4', null],
    ['240.0.0.1', '240.0.0.0/4', null],
    ['255.255.255.254', '240.0.0.0/4', null],
    ['255.255.255.255', '255.255.255.255/32', null],
    ['168.63.129.16', '168.63.129.16/32', '168.63.129.17'],
  ];
  const ipv6: [string, string, string | null][] = [
    ['::', '::/128', null],
    ['::1', '::1/128', null],
    ['::2', '::/96', null],
    ['64:ff9b::808:808', '64:ff9b::/96', null],
    ['64:ff9b:1::1', '64:ff9b:1::/48', null],
    ['100::1', '100::/64', null],
    ['100:0:0:1::1', '100:0:0:1::/64', null],
    ['2001:1ff::1', '2001::/23', '2001:200::1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32', null],
    ['2001:1::1', '2001:1::1/128', null],
    ['2001:2::1', '2001:2::/48', null],
    ['2001:3::1', '2001:3::/32', null],
    ['2001:4:112::1', '2001:4:112::/48', null],
    ['2001:10::1', '2001:10::/28', null],
    ['2001:20::1', '2001:20::/28', null],
    ['2001:30::1', '2001:30::/28', null],
    ['2001:db8::1', '2001:db8::/32', '2001:db9::1'],
    ['2002:c000:0204::1', '2002::/16', '2003::1'],
    ['2620:4f:8000::1', '2620:4f:8000::/48', '2620:4f:8001::1'],
    ['3fff:fff::1', '3fff::/20', '3fff:1000::1'],
    ['5f00::1', '5f00::/16', null],
    ['fc00::1', 'fc00::/7', null],
    ['fd00:ec2::254', 'fc00::/7', null],
    ['fe80::1', 'fe80::/10', null],
    ['febf:ffff::1', 'fe80::/10', null],
    ['fec0::1', 'fec0::/10', null],
    ['ff02::1', 'ff00::/8', null],
    ['::ffff:0:7f00:1', '::ffff:0:0:0/96', null],
  ];

  for (const [family, table] of [
    ['IPv4', ipv4],
    ['IPv6', ipv6],
  ] as const) {
    it(`refuses every ${family} special-purpose block, naming it, and allows just outside`, () => {
      for (const [inside, block, outside] of table) {
        const reason = refused(policy, inside);
        assert.ok(reason.startsWith(`${inside} is in ${block} (`), `${inside}: ${reason}`);
        if (outside) assert.deepEqual(policy.check(outside), { allowed: true }, outside);
      }
    });
  }

  it('names the range in the reason', () => {
    assert.equal(refused(policy, '192.0.2.1'), '192.0.2.1 is in 192.0.2.0/24 (documentation, TEST-NET-1)');
    assert.equal(refused(policy, '[::1]'), '::1 is in ::1/128 (loopback)');
  });

  it('refuses IPv6 outside 2000::/3, the global unicast space', () => {
    for (const address of ['4000::1', '1000::1', 'e000::1', '200::1']) assert.match(refused(policy, address), /outside 2000::\/3/, address);
    assert.deepEqual(policy.check('2a00:1450:4001:82a::200e'), { allowed: true });
    assert.deepEqual(policy.check('3ffe:ffff::1'), { allowed: true });
  });

  it('covers every range ipaddr.js knows', () => {
    type Ranges = Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]>;
    for (const kind of [ipaddr.IPv4, ipaddr.IPv6]) {
      const ranges = (kind.prototype as unknown as { SpecialRanges: Ranges }).SpecialRanges;
      for (const [name, value] of Object.entries(ranges)) {
        const list = (Array.isArray(value[0]) ? value : [value]) as [ipaddr.IPv4 | ipaddr.IPv6, number][];
        for (const [network] of list) {
          const verdict = policy.check(network.toString());
          assert.equal(verdict.allowed, false, `${name} ${network.toString()}`);
          if (!verdict.allowed) assert.doesNotMatch(verdict.reason, /special-purpose range/, `${name} is missing from the table`);
        }
      }
    }
  });

  it('judges IPv4-mapped IPv6 by the IPv4 address it carries, in any spelling', () => {
    for (const address of [
      '::ffff:127.0.0.1',
      '::FFFF:7F00:1',
      '0:0:0:0:0:ffff:7f00:0001',
      '[::ffff:127.0.0.1]',
      '::ffff:10.0.0.1',
      '::ffff:c0a8:101',
      '::ffff:a9fe:a9fe',
      '::ffff:0.0.0.0',
      '::ffff:192.0.2.1',
      '::ffff:168.63.129.16',
    ]) {
      refused(policy, address);
    }
    assert.match(refused(policy, '::ffff:7f00:1'), /^::ffff:7f00:1 \(IPv4 127\.0\.0\.1\) is in 127\.0\.0\.0\/8 \(loopback\)$/);
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '[::ffff:1.1.1.1]'])
      assert.deepEqual(policy.check(address), { allowed: true }, address);
  });

  it('refuses every other embedding of IPv4 in IPv6 whole, even of a public IPv4 address', () => {
    const cases: [string, RegExp][] = [
      ['::7f00:1', /::\/96 \(IPv4-compatible.*carrying 127\.0\.0\.1\)/],
      ['::127.0.0.1', /::\/96 .*carrying 127\.0\.0\.1/],
      ['::8.8.8.8', /::\/96/],
      ['2002:7f00:1::', /2002::\/16 \(6to4, carrying 127\.0\.0\.1\)/],
      ['2002:808:808::1', /2002::\/16 \(6to4, carrying 8\.8\.8\.8\)/],
      ['64:ff9b::7f00:1', /64:ff9b::\/96 .*carrying 127\.0\.0\.1/],
      ['64:ff9b::127.0.0.1', /64:ff9b::\/96/],
      ['64:ff9b::8.8.8.8', /64:ff9b::\/96/],
      ['64:ff9b:1::a00:1', /64:ff9b:1::\/48/],
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', /2001::\/32 \(Teredo\)/],
      ['2001::1', /2001::\/32 \(Teredo\)/],
    ];
    for (const [address, reason] of cases) assert.match(refused(policy, address), reason, address);
  });

  it('refuses ISATAP addresses whose embedded IPv4 address is refused, under any prefix', () => {
    for (const address of [
      '2a00:1450::5efe:7f00:1',
      '2a00:1450::5efe:10.1.2.3',
      '2a00:1450:1:2:200:5efe:192.168.0.1',
      'fe80::5efe:a00:1',
      '2a00:1450::5efe:169.254.169.254',
    ]) {
      refused(policy, address);
    }
    assert.match(refused(policy, '2a00:1450::5efe:10.1.2.3'), /ISATAP address carrying 10\.1\.2\.3: 10\.1\.2\.3 is in 10\.0\.0\.0\/8/);
    for (const address of ['2a00:1450::5efe:8.8.8.8', '2a00:1450::200:5efe:808:808', '2a00:1450::100:5efe:a00:1']) {
      assert.deepEqual(policy.check(address), { allowed: true }, address);
    }
  });

  it('handles brackets and zone ids', () => {
    assert.match(refused(policy, 'fe80::1%eth0'), /fe80::\/10/);
    assert.match(refused(policy, '[fe80::1%eth0]'), /fe80::\/10/);
    assert.match(refused(policy, 'fe80::1%25eth0.5'), /fe80::\/10/);
    assert.match(refused(policy, '[::1]'), /loopback/);
    assert.deepEqual(policy.check('[2606:4700::1111]'), { allowed: true });
    assert.deepEqual(policy.check('2606:4700::1111%eth0'), { allowed: true });
  });

  it('refuses text that is not an IP address', () => {
    for (const text of [
      'localhost',
      '',
      'example.com',
      '127.1',
      '2130706433',
      '0x7f.0.0.1',
      '0177.0.0.1',
      '010.0.0.1',
      '8.8.8.8 ',
      ' 8.8.8.8',
      '8.8.8.8%eth0',
      'fe80::1%',
      '[8.8.8.8]x',
      '[2606:4700::1111',
      '::ffff:8.8.8.8.8',
      '1.2.3.4/32',
      '2606:4700::1111:',
      'gggg::1',
    ]) {
      assert.match(refused(policy, text), /is not an IP address/, JSON.stringify(text));
    }
  });

  it("refuses the host's own interface addresses, even public ones, in every spelling", () => {
    const host = new EgressPolicy([], fixedHostAddresses(['8.8.4.4', '2606:4700:4700::1001', 'fe80::abcd%eth0', '127.0.0.1']));
    assert.equal(refused(host, '8.8.4.4'), "8.8.4.4 is one of this host's own addresses");
    refused(host, '::ffff:8.8.4.4');
    refused(host, '::ffff:808:404');
    refused(host, '2606:4700:4700:0:0:0:0:1001');
    refused(host, '[2606:4700:4700::1001]');
    refused(host, '2a00:1450::5efe:8.8.4.4'); // ISATAP carrying the host's own IPv4
    assert.deepEqual(host.check('8.8.8.8'), { allowed: true });
    assert.deepEqual(host.check('2606:4700:4700::1111'), { allowed: true });
  });

  it('re-reads the interfaces once they are stale', () => {
    let now = 0;
    let reads = 0;
    let addresses = ['8.8.4.4'];
    const live = new EgressPolicy([], new InterfaceAddresses({ read: () => (reads++, addresses), maxAgeMs: 5_000, now: () => now }));
    refused(live, '8.8.4.4');
    assert.deepEqual(live.check('1.0.0.1'), { allowed: true });
    assert.equal(reads, 1);
    addresses = ['1.0.0.1'];
    now = 4_999;
    assert.deepEqual(live.check('1.0.0.1'), { allowed: true });
    assert.equal(reads, 1);
    now = 5_000;
    refused(live, '1.0.0.1');
    assert.deepEqual(live.check('8.8.4.4'), { allowed: true });
    assert.equal(reads, 2);
  });

  it('lets an operator allow ranges explicitly', () => {
    const allowing = new EgressPolicy(parseCidrList(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'], 'X'), noHost);
    assert.deepEqual(allowing.check('127.0.0.1'), { allowed: true });
    assert.deepEqual(allowing.check('::ffff:127.0.0.1'), { allowed: true });
    assert.deepEqual(allowing.check('10.200.1.1'), { allowed: true });
    assert.deepEqual(allowing.check('fd00::1'), { allowed: true });
    refused(allowing, '127.0.0.2');
    refused(allowing, '192.168.1.1');
    refused(allowing, 'fe00::1');
    refused(allowing, 'fc00::1');
  });

  it('opens documentation, special and metadata blocks the operator names', () => {
    const allowing = new EgressPolicy(
      parseCidrList(['192.0.2.0/24', '2001:db8::/32', '169.254.169.254', '::ffff:203.0.113.0/120'], 'X'),
      noHost,
    );
    for (const address of ['192.0.2.1', '2001:db8::1', '169.254.169.254', '203.0.113.9', '::ffff:203.0.113.9']) {
      assert.deepEqual(allowing.check(address), { allowed: true }, address);
    }
    refused(allowing, '169.254.169.253');
  });

  it('opens the host itself only for an entry that names exactly such an address or a loopback block', () => {
    const host = fixedHostAddresses(['10.0.0.5', '8.8.4.4', '2a00:1450::5', '127.0.0.1', '::1']);
    const broad = new EgressPolicy(parseCidrList(['10.0.0.0/8', '8.8.4.0/24', '0.0.0.0/0', '::/0'], 'X'), host);
    assert.deepEqual(broad.check('10.0.0.6'), { allowed: true });
    assert.deepEqual(broad.check('8.8.4.5'), { allowed: true });
    assert.deepEqual(broad.check('192.168.1.1'), { allowed: true });
    assert.deepEqual(broad.check('fd00::1'), { allowed: true });
    for (const address of [
      '10.0.0.5',
      '8.8.4.4',
      '::ffff:8.8.4.4',
      '2a00:1450::5',
      '127.0.0.1',
      '127.0.0.2',
      '::1',
      '0.0.0.0',
      '::',
      '::ffff:127.0.0.1',
    ]) {
      refused(broad, address);
    }
    assert.match(refused(broad, '8.8.4.4'), /this host's own addresses/);

    const exact = new EgressPolicy(parseCidrList(['10.0.0.5/32', '8.8.4.4', '2a00:1450::5/128', '127.0.0.0/8', '::1'], 'X'), host);
    for (const address of ['10.0.0.5', '8.8.4.4', '::ffff:8.8.4.4', '2a00:1450::5', '127.0.0.1', '127.0.0.2', '::1', '::ffff:7f00:2']) {
      assert.deepEqual(exact.check(address), { allowed: true }, address);
    }
    refused(exact, '10.0.0.6');
    refused(exact, '0.0.0.0');
  });

  it('reads the real interfaces by default', () => {
    const real = new EgressPolicy();
    refused(real, '127.0.0.1');
    assert.deepEqual(real.check('8.8.8.8').allowed, ![...systemInterfaces()].includes('8.8.8.8'));
  });
});

describe('parseCidrList', () => {
  it('names every bad entry', () => {
    assert.throws(
      () => parseCidrList(['10.0.0.0/33', 'nonsense', '::1/129', '1.2.3.4/8/1'], 'BROWSER_EGRESS_ALLOW'),
      (err: Error) => {
        for (const bad of ['10.0.0.0/33', 'nonsense', '::1/129', '1.2.3.4/8/1'])
          assert.match(err.message, new RegExp(bad.replace(/[./]/g, '\\$&')));
        return true;
      },
    );
  });
});
