import { BlockList, isIP } from 'node:net';
import { blockListOf, type CidrBlock } from '../../net/cidr.ts';

/**
 * Addresses a remote browser must never reach unless the operator allows them: the service
 * host's own network, private ranges, link-local (which holds most cloud metadata services),
 * and the few metadata addresses that sit in public space.
 */
const DENIED: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT (Alibaba metadata 100.100.100.200)
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (AWS/GCP/Azure metadata 169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['168.63.129.16', 32, 'ipv4'], // Azure wire server
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved and broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64, which can embed any IPv4 address
  ['2002::', 16, 'ipv6'], // 6to4, likewise
  ['fc00::', 7, 'ipv6'], // unique local (AWS metadata fd00:ec2::254)
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
];

export type EgressVerdict = { allowed: true } | { allowed: false; reason: string };

export class EgressPolicy {
  readonly #denied: BlockList;
  readonly #allowed: BlockList;

  constructor(allow: readonly CidrBlock[] = []) {
    this.#denied = new BlockList();
    for (const [address, prefix, family] of DENIED) this.#denied.addSubnet(address, prefix, family);
    this.#allowed = blockListOf(allow);
  }

  /** Decide on a resolved IP address (never on a host name). */
  check(address: string): EgressVerdict {
    const plain = unmapIpv4(address);
    const version = isIP(plain);
    if (version === 0) return { allowed: false, reason: `"${address}" is not an IP address` };
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (this.#allowed.check(plain, family)) return { allowed: true };
    if (this.#denied.check(plain, family)) {
      return { allowed: false, reason: `${plain} is in a private, loopback, link-local or metadata range` };
    }
    return { allowed: true };
  }
}

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` are IPv4 addresses in disguise. */
export function unmapIpv4(address: string): string {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const dotted = /^(?:0{0,4}:){0,5}ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return lower;
}
