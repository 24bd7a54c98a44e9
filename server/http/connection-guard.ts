import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

export type ConnectionLimits = {
  /** A request's headers must be complete within this long (ms), a /start handshake's included. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must be complete within this long (ms). */
  requestTimeoutMs: number;
  /** Open connections one client (an IPv4 address, an IPv6 /64) may hold at once (0: no limit). */
  perAddress: number;
};

/**
 * Keep slow or greedy clients from holding the server: header and request deadlines checked every
 * second (Node checks every 30 s by default), and a cap on connections per client address; a
 * connection over the cap is closed at once, before it is read, so others keep being served.
 */
export function guardConnections(server: Server, limits: ConnectionLimits, onRefused: (address: string) => void = () => {}): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  if (limits.perAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = clientOf(socket.remoteAddress ?? '');
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.perAddress) {
      onRefused(address);
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * Who a connection comes from, for the cap: an IPv4 address (also when it arrives IPv4-mapped), or
 * the /64 an IPv6 address lies in, since one IPv6 host is routinely given a whole /64 and could
 * otherwise spread its connections over as many addresses as it likes.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${(ip as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
