import ipaddr from 'ipaddr.js';
import type { CidrBlock } from '../../net/cidr.ts';
import { InterfaceAddresses, isIpv6, parseAddress, unmapped, type HostAddresses, type IpAddress } from '../../net/host-addresses.ts';

/**
 * Addresses a remote browser must never reach unless the operator allows them. Every entry of
 * the IANA IPv4 and IPv6 Special-Purpose Address Registries (by registry name), plus multicast and
 * the deprecated IPv6 blocks, plus cloud metadata services that sit in public space. Most cloud
 * metadata services are already inside these: AWS/GCP/Azure/OpenStack/DigitalOcean 169.254.169.254,
 * ECS 169.254.170.2 and Tencent 169.254.0.23 (link-local), Alibaba 100.100.100.200 (shared address
 * space), Oracle 192.0.0.192 (IETF protocol assignments), AWS fd00:ec2::254 and GCP fd20:ce::254
 * (unique-local). ipaddr.js's `range()` knows most of these but not all (not 168.63.129.16, nor
 * 100:0:0:1::/64, nor `::/96`), and gives no CIDR to cite, hence this table; `range()` still backs it
 * up in `check`. Where blocks nest, the most specific one is named in the verdict.
 *
 * IPv4-mapped IPv6 (`::ffff:a.b.c.d`, in any spelling) is judged as the IPv4 address it carries, so
 * `::ffff:0:0/96` is not listed. Every other block that embeds IPv4 (IPv4-compatible, NAT64, 6to4,
 * Teredo) is denied whole; ISATAP interface ids are handled in `check`.
 */
const DENIED: readonly (readonly [cidr: string, name: string])[] = [
  // IANA IPv4 Special-Purpose Address Registry
  ['0.0.0.0/8', '"this network"'],
  ['0.0.0.0/32', '"this host on this network"'],
  ['10.0.0.0/8', 'private-use'],
  ['100.64.0.0/10', 'shared address space, carrier-grade NAT; Alibaba Cloud metadata'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local; cloud metadata services'],
  ['172.16.0.0/12', 'private-use'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.0.0/29', 'IPv4 service continuity prefix'],
  ['192.0.0.8/32', 'IPv4 dummy address'],
  ['192.0.0.9/32', 'Port Control Protocol anycast'],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT anycast'],
  ['192.0.0.170/31', 'NAT64/DNS64 discovery'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1'],
  ['192.31.196.0/24', 'AS112-v4'],
  ['192.52.193.0/24', 'Automatic Multicast Tunneling'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private-use'],
  ['192.175.48.0/24', 'direct delegation AS112 service'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'limited broadcast'],
  // IANA IPv4 Multicast Address Space Registry
  ['224.0.0.0/4', 'multicast'],
  // Cloud metadata in public space (no registry)
  ['168.63.129.16/32', 'Azure wire server, cloud metadata'],
  ['192.0.0.192/32', 'Oracle Cloud metadata'],

  // IANA IPv6 Special-Purpose Address Registry
  ['::1/128', 'loopback'],
  ['::/128', 'unspecified'],
  ['64:ff9b::/96', 'IPv4-IPv6 translation, NAT64'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy IPv6 prefix'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001::/32', 'Teredo'],
  ['2001:1::1/128', 'Port Control Protocol anycast'],
  ['2001:1::2/128', 'Traversal Using Relays around NAT anycast'],
  ['2001:1::3/128', 'DNS-SD service registration protocol anycast'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:3::/32', 'Automatic Multicast Tunneling'],
  ['2001:4:112::/48', 'AS112-v6'],
  ['2001:10::/28', 'deprecated ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:30::/28', 'drone remote ID protocol entity tags'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'direct delegation AS112 service'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing (SRv6) SIDs'],
  ['fc00::/7', 'unique-local; cloud metadata services'],
  ['fe80::/10', 'link-local unicast'],
  // IANA IPv6 Address Space Registry and RFC 4291 (not in the special-purpose registry)
  ['::/96', 'IPv4-compatible, deprecated'],
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['fec0::/10', 'site-local, deprecated'],
  ['ff00::/8', 'multicast'],
];

/** IANA has allocated only 2000::/3 for global unicast; everything else is special or reserved. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Addresses that reach this host itself. A broad allow-list entry never opens these (see
 * `EgressPolicy`); only an entry lying within one of these blocks does.
 */
const LOOPBACK_LIKE: readonly (readonly [IpAddress, number])[] = ['127.0.0.0/8', '0.0.0.0/32', '::1/128', '::/128'].map((c) =>
  ipaddr.parseCIDR(c),
);

type Block = { readonly network: IpAddress; readonly bits: number; readonly text: string; readonly name: string };

function compile(table: readonly (readonly [string, string])[]): { v4: Block[]; v6: Block[] } {
  const blocks = table.map(([text, name]): Block => {
    const [network, bits] = ipaddr.parseCIDR(text);
    return { network, bits, text, name };
  });
  // Most specific first, so the verdict names the narrowest block.
  blocks.sort((a, b) => b.bits - a.bits);
  return { v4: blocks.filter((b) => b.network.kind() === 'ipv4'), v6: blocks.filter((b) => b.network.kind() === 'ipv6') };
}

const DENIED_BLOCKS = compile(DENIED);

function find(blocks: { v4: readonly Block[]; v6: readonly Block[] }, address: IpAddress): Block | undefined {
  const list = address.kind() === 'ipv4' ? blocks.v4 : blocks.v6;
  return list.find((b) => address.match(b.network, b.bits));
}

function within(address: IpAddress, [network, bits]: readonly [IpAddress, number]): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}

type AllowEntry = { readonly network: IpAddress; readonly bits: number; readonly opensHost: boolean };

function allowEntry(block: CidrBlock): AllowEntry | null {
  const parsed = parseAddress(block.address);
  if (!parsed) return null;
  let network: IpAddress = parsed;
  let bits = block.prefix;
  // `::ffff:10.0.0.0/104` names IPv4 addresses, and mapped addresses are judged as IPv4.
  if (isIpv6(network) && network.isIPv4MappedAddress() && bits >= 96) {
    network = network.toIPv4Address();
    bits -= 96;
  }
  const full = network.kind() === 'ipv4' ? 32 : 128;
  const opensHost = bits === full || LOOPBACK_LIKE.some(([n, b]) => bits >= b && within(network, [n, b]));
  return { network, bits, opensHost };
}

/** The ISATAP interface id (RFC 5214), `::0:5efe:a.b.c.d` or `::200:5efe:a.b.c.d` under any prefix. */
function isatapIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = address.parts;
  if (p[5] !== 0x5efe || ((p[4] ?? 1) & 0xfdff) !== 0) return null;
  return ipv4Of(p[6], p[7]);
}

/** The IPv4 address that 6to4, NAT64 and IPv4-compatible addresses carry, for the verdict's reason. */
function embeddedIpv4(address: ipaddr.IPv6, block: string): ipaddr.IPv4 | null {
  const p = address.parts;
  const at = block === '2002::/16' ? 1 : block === '64:ff9b::/96' || block === '::/96' ? 6 : -1;
  if (at === -1) return null;
  return ipv4Of(p[at], p[at + 1]);
}

function ipv4Of(hi = 0, lo = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

export type EgressVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Decides, on the resolved IP address actually connected to, whether a remote browser may reach it.
 *
 * Order: anything that is not an IP address is refused; then the operator's allow-list
 * (BROWSER_EGRESS_ALLOW) is checked first and opens what it names, with one exception: an address
 * that reaches this host itself (loopback, 0.0.0.0, ::, or one of the host's own interface
 * addresses) is opened only by an entry that names it exactly (a single address, e.g.
 * `127.0.0.1/32` or the host's `10.0.0.5`) or that lies wholly in loopback (`127.0.0.0/8`). So
 * `10.0.0.0/8` opens the private network but not the host's own 10.0.0.5, and `0.0.0.0/0` never
 * opens 127.0.0.1. Then the special-purpose table, the non-global IPv6 space, ISATAP ids that carry
 * a refused IPv4 address, and the host's own interface addresses (even public ones) are refused.
 */
export class EgressPolicy {
  readonly #allow: readonly AllowEntry[];
  readonly #host: HostAddresses;

  constructor(allow: readonly CidrBlock[] = [], host: HostAddresses = new InterfaceAddresses()) {
    this.#allow = allow.map(allowEntry).filter((e): e is AllowEntry => e !== null);
    this.#host = host;
  }

  /** Decide on a resolved IP address (never on a host name). */
  check(address: string): EgressVerdict {
    const parsed = parseAddress(address);
    if (!parsed) return deny(`"${address}" is not an IP address`);
    const plain = unmapped(parsed);
    const shown = plain === parsed ? bareText(address) : `${bareText(address)} (IPv4 ${plain.toString()})`;

    const ownHost = LOOPBACK_LIKE.some((l) => within(plain, l)) || this.#host.has(plain);
    for (const entry of this.#allow) {
      if ((!ownHost || entry.opensHost) && within(plain, [entry.network, entry.bits])) return { allowed: true };
    }

    const refusal = this.#refusal(plain, shown);
    if (refusal) return deny(refusal);
    if (ownHost) return deny(`${shown} is one of this host's own addresses`);
    return { allowed: true };
  }

  /** Why the deny tables refuse `address` (unmapped already), or null. */
  #refusal(address: IpAddress, shown: string): string | null {
    const block = find(DENIED_BLOCKS, address);
    if (block) {
      const carried = isIpv6(address) ? embeddedIpv4(address, block.text) : null;
      return `${shown} is in ${block.text} (${block.name}${carried ? `, carrying ${carried.toString()}` : ''})`;
    }
    if (isIpv6(address)) {
      if (!within(address, GLOBAL_UNICAST_V6)) return `${shown} is outside 2000::/3, the only IPv6 space allocated for global unicast`;
      const embedded = isatapIpv4(address);
      if (embedded) {
        const why =
          this.#refusal(embedded, embedded.toString()) ??
          (this.#host.has(embedded) ? `${embedded.toString()} is one of this host's own addresses` : null);
        if (why) return `${shown} is an ISATAP address carrying ${embedded.toString()}: ${why}`;
      }
    }
    // ipaddr.js's own classification, should it know a block the table lacks.
    const range = address.range();
    if (range !== 'unicast') return `${shown} is in a special-purpose range (${range})`;
    return null;
  }
}

function deny(reason: string): EgressVerdict {
  return { allowed: false, reason };
}

function bareText(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}
