import { createServer, type IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nextModule from 'next';
import type { NextServer, NextServerOptions } from 'next/dist/server/next.js';
import { ConfigError } from '#shared/config-schema.ts';
import { loadPortalConfig } from '#portal/config.ts';
import { CLIENT_ADDRESS_HEADER } from '#portal/accounts/auth.ts';
import { dashboardSnapshot } from '#portal/live/browsers.ts';
import { resolveLiveLink } from '#portal/live/links.ts';
import { publishPortal } from '#portal/handle.ts';
import { createPortal } from '#portal/runtime.ts';
import { recheckAccess, sameOrigins, sessionUser } from './live-auth.ts';
import type { SocketAuth } from './sockets/authorize.ts';
import { DashboardSockets } from './sockets/dashboard.ts';
import { LiveSockets } from './sockets/live.ts';
import { routeUpgrade } from './upgrade.ts';

// At run time the CommonJS module itself is the factory; its typings only describe `.default`.
const next = nextModule as unknown as (options: NextServerOptions) => NextServer;

/** The portal: Next.js on a custom Node server that also owns the portal's WebSockets. */
async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED ??= '1';
  const config = loadPortalConfig();
  // Everything the process holds is built here, once, before Next prepares (lib/portal/runtime.ts).
  const p = await createPortal(config);
  publishPortal(p);
  const log = p.log;
  // next-auth reads these from the environment in its own routes.
  process.env.NEXTAUTH_SECRET = p.authSecret;
  process.env.NEXTAUTH_URL = config.publicUrl;
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const app = next({ dev: config.dev, dir: root, hostname: config.host, port: config.port });
  const handle = app.getRequestHandler();
  await app.prepare();
  // Only valid after prepare(); a custom server must route upgrades itself (docs/decisions/0003-two-processes-and-socket-routing.md).
  const nextUpgrade = app.getUpgradeHandler();

  const server = createServer((req, res) => {
    // The client's address, for sign-in throttling; never taken from the request unless TRUST_PROXY.
    const forwarded = config.trustProxy
      ? String(req.headers['x-forwarded-for'] ?? '')
          .split(',')[0]
          ?.trim()
      : '';
    req.headers[CLIENT_ADDRESS_HEADER] = forwarded || req.socket.remoteAddress || 'unknown';
    void handle(req, res);
  });
  const auth: SocketAuth = {
    authenticate: (req: IncomingMessage) => sessionUser(p, req),
    allowedOrigins: (req: IncomingMessage) => sameOrigins(p, req),
    recheck: (user, teamId) => recheckAccess(p, user, teamId),
    onAccessChange: (listener) => p.data.onAccessChange(listener),
  };
  const live = new LiveSockets({
    ...auth,
    instances: p.live,
    resolveLink: (token) => resolveLiveLink(p.data, p.live, token),
    log: log.child({ part: 'live' }),
  });
  const dashboard = new DashboardSockets({
    ...auth,
    instances: p.live,
    snapshot: (userId, teamId) => dashboardSnapshot(p, { userId }, teamId),
    log: log.child({ part: 'dashboard' }),
  });
  server.on('upgrade', (req, socket, head) => routeUpgrade(req, socket, head, { dev: config.dev, nextUpgrade, live, dashboard }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  log.info({ url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl, serviceUrl: config.serviceUrl }, 'portal listening');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close();
    live.closeAll();
    dashboard.closeAll();
    // Close every /start socket cleanly: the service then ends those instances.
    void p.live.shutdown().finally(() => {
      server.closeAllConnections();
      void app.close().finally(() => process.exit(0));
    });
  };
  // `on`, not `once`: a signal to the process group and the one `npm start` forwards both arrive.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
