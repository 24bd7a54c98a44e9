import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCidrList } from '../../net/cidr.ts';
import { EgressPolicy, unmapIpv4 } from './policy.ts';

describe('EgressPolicy', () => {
  const policy = new EgressPolicy();

  it('refuses loopback, private, link-local, metadata and reserved addresses', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.10',
      '169.254.169.254', '168.63.129.16', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::5', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1']) {
      const verdict = policy.check(address);
      assert.equal(verdict.allowed, false, address);
    }
  });

  it('allows public addresses, including ones next to the blocked ranges', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '168.63.129.17', '2606:4700::1111', '::ffff:8.8.8.8']) {
      assert.deepEqual(policy.check(address), { allowed: true }, address);
    }
  });

  it('refuses text that is not an IP address', () => {
    assert.equal(policy.check('localhost').allowed, false);
    assert.equal(policy.check('').allowed, false);
  });

  it('lets an operator allow ranges explicitly', () => {
    const allowing = new EgressPolicy(parseCidrList(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'], 'X'));
    assert.deepEqual(allowing.check('127.0.0.1'), { allowed: true });
    assert.deepEqual(allowing.check('10.200.1.1'), { allowed: true });
    assert.deepEqual(allowing.check('fd00::1'), { allowed: true });
    assert.equal(allowing.check('127.0.0.2').allowed, false);
    assert.equal(allowing.check('192.168.1.1').allowed, false);
  });
});

describe('unmapIpv4', () => {
  it('unwraps IPv4-mapped IPv6 in both notations', () => {
    assert.equal(unmapIpv4('::ffff:10.0.0.1'), '10.0.0.1');
    assert.equal(unmapIpv4('[::FFFF:0a00:0001]'), '10.0.0.1');
    assert.equal(unmapIpv4('0:0:0:0:0:ffff:c0a8:0101'), '192.168.1.1');
    assert.equal(unmapIpv4('2001:db8::1'), '2001:db8::1');
  });
});

describe('parseCidrList', () => {
  it('names every bad entry', () => {
    assert.throws(() => parseCidrList(['10.0.0.0/33', 'nonsense', '::1/129', '1.2.3.4/8/1'], 'BROWSER_EGRESS_ALLOW'), (err: Error) => {
      for (const bad of ['10.0.0.0/33', 'nonsense', '::1/129', '1.2.3.4/8/1']) assert.match(err.message, new RegExp(bad.replace(/[./]/g, '\\$&')));
      return true;
    });
  });
});
