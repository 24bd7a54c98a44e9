import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { NotFound } from '../../lib/errors.ts';
import { rejectUpgrade } from '../http/respond.ts';

type NextUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void> | void;

/**
 * Every WebSocket upgrade the portal accepts is routed here, before Next sees it. Next's own
 * upgrade listener (attached on the first HTTP request) ignores sockets we already took over.
 * In development Next's hot-reload socket passes through.
 */
export function routeUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, opts: { dev: boolean; nextUpgrade: NextUpgrade }): void {
  socket.on('error', () => socket.destroy());
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (opts.dev && path.startsWith('/_next/')) {
    void opts.nextUpgrade(req, socket, head);
    return;
  }
  rejectUpgrade(socket, new NotFound(`no WebSocket endpoint at ${path}`));
}
