import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nextModule from 'next';
import type { NextServer, NextServerOptions } from 'next/dist/server/next.js';
import { ConfigError } from '#shared/config-schema.ts';
import { loadPortalConfig } from '#portal/config.ts';
import { CLIENT_ADDRESS_HEADER } from '#portal/accounts/auth.ts';
import { publishPortal } from '#portal/handle.ts';
import { createPortal } from '#portal/runtime.ts';
import { createEdge } from './edge.ts';

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

  const edge = createEdge(p, { dev: config.dev, nextUpgrade });
  const server = createServer((req, res) => {
    // Node-to-node requests (several portal nodes, decision 0095) never reach Next.
    if (edge.request(req, res)) return;
    // The client's address, for sign-in throttling; never taken from the request unless TRUST_PROXY.
    const forwarded = config.trustProxy
      ? String(req.headers['x-forwarded-for'] ?? '')
          .split(',')[0]
          ?.trim()
      : '';
    req.headers[CLIENT_ADDRESS_HEADER] = forwarded || req.socket.remoteAddress || 'unknown';
    void handle(req, res);
  });
  server.on('upgrade', (req, socket, head) => edge.upgrade(req, socket, head));
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
    edge.closeAll();
    // Close every /start socket cleanly: the service then ends those instances; then leave the other nodes.
    void p.live
      .shutdown()
      .then(() => p.cluster?.close())
      .catch((err: unknown) => log.warn({ err }, 'could not leave the other portal nodes cleanly'))
      .finally(() => {
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
