import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { NotFound } from '#shared/errors.ts';
import { rejectUpgrade } from '../http/respond.ts';
import { DASHBOARD_PATH, type DashboardSockets } from './sockets/dashboard.ts';
import { LINK_PATH, LIVE_PATH, type LiveSockets } from './sockets/live.ts';
import { NODE_LIVE_PATH } from '#portal/protocol/node.ts';

type NextUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void> | void;

/**
 * Every WebSocket upgrade the portal accepts is routed here, before Next sees it. Next's own
 * upgrade listener (attached on the first HTTP request) ignores sockets we already took over.
 * In development Next's hot-reload socket passes through.
 */
export function routeUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  opts: { dev: boolean; nextUpgrade: NextUpgrade; live: LiveSockets; dashboard: DashboardSockets },
): void {
  socket.on('error', () => socket.destroy());
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const live = LIVE_PATH.exec(path);
  if (live?.[1]) {
    void opts.live.handleUpgrade(req, socket, head, live[1]);
    return;
  }
  const link = LINK_PATH.exec(path);
  if (link?.[1]) {
    void opts.live.handleLinkUpgrade(req, socket, head, link[1]);
    return;
  }
  const relayed = NODE_LIVE_PATH.exec(path);
  if (relayed?.[1]) {
    void opts.live.handleNodeUpgrade(req, socket, head, relayed[1]);
    return;
  }
  const dashboard = DASHBOARD_PATH.exec(path);
  if (dashboard?.[1]) {
    void opts.dashboard.handleUpgrade(req, socket, head, dashboard[1]);
    return;
  }
  if (opts.dev && path.startsWith('/_next/')) {
    void opts.nextUpgrade(req, socket, head);
    return;
  }
  rejectUpgrade(socket, new NotFound(`no WebSocket endpoint at ${path}`));
}
