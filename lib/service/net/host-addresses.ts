import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export function isIpv6(address: IpAddress): address is ipaddr.IPv6 {
  return address.kind() === 'ipv6';
}

/**
 * Parse one IP address strictly: dotted-decimal IPv4 (no `127.1`, octal or hex forms, which
 * ipaddr.js would accept but a connect() need not read the same way) or IPv6, optionally in
 * brackets and with a zone id (`fe80::1%eth0`, `[fe80::1%25eth0]`), which is dropped. Returns null
 * for anything else, including host names.
 */
export function parseAddress(text: string): IpAddress | null {
  let bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = bare.indexOf('%');
  if (zone !== -1) {
    if (zone === bare.length - 1) return null; // an empty zone id
    bare = bare.slice(0, zone);
    if (isIP(bare) !== 6) return null; // zone ids belong to IPv6 only
  }
  const version = isIP(bare);
  if (version === 4) return ipaddr.IPv4.isValidFourPartDecimal(bare) ? ipaddr.IPv4.parse(bare) : null;
  if (version === 6) {
    const hex = dottedTailAsHex(bare);
    return hex !== null && ipaddr.IPv6.isValid(hex) ? ipaddr.IPv6.parse(hex) : null;
  }
  return null;
}

/**
 * `::127.0.0.1` → `::7f00:1`. ipaddr.js reads `::a.b.c.d` as the IPv4-*mapped* `::ffff:a.b.c.d`,
 * while the socket layer connects to the IPv4-*compatible* `::a.b.c.d`; spelling the tail in hex
 * first makes both read the same address.
 */
function dottedTailAsHex(address: string): string | null {
  const cut = address.lastIndexOf(':');
  const tail = address.slice(cut + 1);
  if (!tail.includes('.')) return address;
  if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).octets;
  return `${address.slice(0, cut + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 address it carries. */
export function unmapped(address: IpAddress): IpAddress {
  return isIpv6(address) && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/** One spelling per address (mapped IPv6 as its IPv4, IPv6 fully expanded), for set look-ups. */
export function addressKey(address: IpAddress): string {
  const plain = unmapped(address);
  return plain.kind() === 'ipv4' ? plain.toString() : plain.toNormalizedString();
}

/** The addresses this machine's network interfaces hold, of every family. */
export interface HostAddresses {
  has(address: IpAddress): boolean;
}

/** Reads the interface addresses as text (zone ids and IPv4-mapped forms are accepted). */
export type InterfaceReader = () => Iterable<string>;

export const systemInterfaces: InterfaceReader = () =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));

export type InterfaceAddressesOptions = {
  read?: InterfaceReader;
  /** Re-read the interfaces when the last reading is older than this (default 5 s). */
  maxAgeMs?: number;
  now?: () => number;
};

/**
 * The host's interface addresses, read lazily and again at most every `maxAgeMs` on look-up, since
 * interfaces come and go (DHCP, VPNs, containers). A failed reading keeps the last good set and is
 * retried on the next look-up after `maxAgeMs`.
 */
export class InterfaceAddresses implements HostAddresses {
  readonly #read: InterfaceReader;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #keys: ReadonlySet<string> = new Set();
  #readAt = Number.NEGATIVE_INFINITY;

  constructor(options: InterfaceAddressesOptions = {}) {
    this.#read = options.read ?? systemInterfaces;
    this.#maxAgeMs = options.maxAgeMs ?? 5_000;
    this.#now = options.now ?? Date.now;
  }

  has(address: IpAddress): boolean {
    const now = this.#now();
    if (now - this.#readAt >= this.#maxAgeMs) {
      this.#readAt = now;
      try {
        this.#keys = keysOf(this.#read());
      } catch {
        // Keep what we had; try again after maxAgeMs.
      }
    }
    return this.#keys.has(addressKey(address));
  }
}

/** A fixed set of host addresses, for tests and for callers that know them already. */
export function fixedHostAddresses(addresses: Iterable<string>): HostAddresses {
  const keys = keysOf(addresses);
  return { has: (address) => keys.has(addressKey(address)) };
}

function keysOf(addresses: Iterable<string>): Set<string> {
  const keys = new Set<string>();
  for (const text of addresses) {
    const parsed = parseAddress(text);
    if (parsed) keys.add(addressKey(parsed));
  }
  return keys;
}
