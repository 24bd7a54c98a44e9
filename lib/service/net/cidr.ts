import { BlockList, isIP } from 'node:net';
import { ConfigError } from '#shared/config-schema.ts';

export type CidrBlock = { address: string; prefix: number; family: 'ipv4' | 'ipv6' };

/** Parse `1.2.3.4`, `10.0.0.0/8`, `::1` or `fd00::/8`; returns null when the text is not one. */
export function parseCidr(text: string): CidrBlock | null {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : null;
}

/** Parse a list of CIDR blocks from configuration, naming the variable on failure. */
export function parseCidrList(items: readonly string[], variable: string): CidrBlock[] {
  const bad = items.filter((item) => parseCidr(item) === null);
  if (bad.length) throw new ConfigError(bad.map((b) => `${variable}: "${b}" is not an IP address or CIDR block`));
  return items.map((item) => parseCidr(item) as CidrBlock);
}

export function blockListOf(blocks: readonly CidrBlock[]): BlockList {
  const list = new BlockList();
  for (const b of blocks) list.addSubnet(b.address, b.prefix, b.family);
  return list;
}
