import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { dashboardSnapshot } from '#portal/live/browsers.ts';
import { resolveLiveLink } from '#portal/live/links.ts';
import type { Portal } from '#portal/runtime.ts';
import { recheckAccess, sameOrigins, sessionUser } from './live-auth.ts';
import { handleNodeRequest, isNodePath } from './node-routes.ts';
import type { SocketAuth } from './sockets/authorize.ts';
import { DashboardSockets } from './sockets/dashboard.ts';
import { LiveSockets } from './sockets/live.ts';
import { routeUpgrade } from './upgrade.ts';

type NextUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void> | void;

/** What the portal's server answers itself, before Next: its WebSockets and the node-to-node requests. */
export type PortalEdge = {
  live: LiveSockets;
  dashboard: DashboardSockets;
  /** True when the request was node-to-node and has been answered. */
  request(req: IncomingMessage, res: ServerResponse): boolean;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Close every socket (shutdown). */
  closeAll(): void;
};

/** The portal's sockets and node endpoints over a built portal (server/portal/main.ts, and the node tests). */
export function createEdge(p: Portal, opts: { dev: boolean; nextUpgrade: NextUpgrade }): PortalEdge {
  const auth: SocketAuth = {
    authenticate: (req: IncomingMessage) => sessionUser(p, req),
    allowedOrigins: (req: IncomingMessage) => sameOrigins(p, req),
    recheck: (user, teamId) => recheckAccess(p, user, teamId),
    onAccessChange: (listener) => p.data.onAccessChange(listener),
  };
  const live = new LiveSockets({
    ...auth,
    browsers: p.browsers,
    cluster: p.cluster,
    resolveLink: (token) => resolveLiveLink(p.data, p.browsers, token),
    mayTakeControl: async (userId, teamId) => ['owner', 'admin'].includes((await p.data.membership(teamId, userId))?.role ?? ''),
    log: p.log.child({ part: 'live' }),
  });
  const dashboard = new DashboardSockets({
    ...auth,
    browsers: p.browsers,
    snapshot: (userId, teamId) => dashboardSnapshot(p, { userId }, teamId),
    log: p.log.child({ part: 'dashboard' }),
  });
  return {
    live,
    dashboard,
    request(req, res) {
      if (!isNodePath(req.url)) return false;
      void handleNodeRequest(req, res, { cluster: p.cluster, browsers: p.browsers });
      return true;
    },
    upgrade: (req, socket, head) => routeUpgrade(req, socket, head, { dev: opts.dev, nextUpgrade: opts.nextUpgrade, live, dashboard }),
    closeAll() {
      live.closeAll();
      dashboard.closeAll();
    },
  };
}
