import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export type ConnectionLimits = {
  /** A request's headers must be complete within this long (ms), a /start handshake's included. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must be complete within this long (ms). */
  requestTimeoutMs: number;
  /** Open connections one client address may hold at once (0: no limit). */
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
    const address = socket.remoteAddress ?? '';
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
