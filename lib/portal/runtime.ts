import type { PortalConfig } from '../config/portal.ts';
import { loadServiceConfig } from '../config/service.ts';
import { SecretBox } from '../crypto/secretbox.ts';
import type { PortalData } from '../db/portal-data.ts';
import { SqlitePortalData } from '../db/portal-sqlite.ts';
import { createLogger, type Logger } from '../observability/log.ts';
import { LiveInstances } from '../remote/instances.ts';
import { ServiceHealthReader } from '../service-client/health.ts';
import { KeyUseLog } from './audit.ts';
import { recordBrowserEvents } from './browsers.ts';
import { publishedPortal } from './handle.ts';
import { EmbeddedIssuer, NoIssuer, type KeyIssuer } from './issuer.ts';
import { SearchProxy } from './search.ts';
import { resolvePortalSecrets } from './secrets.ts';
import { SignInThrottle } from './throttle.ts';
import type { Vault } from './vault.ts';

/**
 * Everything the portal process holds, built once by the composition root (createPortal) before
 * Next prepares, and reached through one handle (lib/portal/handle.ts).
 */
export type Portal = {
  config: PortalConfig;
  authSecret: string;
  data: PortalData;
  vault: Vault;
  throttle: SignInThrottle;
  log: Logger;
  /** The hosted search page's upstream, answer cache and last-seen limits (decision 0040). */
  search: SearchProxy;
  /** The browsers the portal holds open for its users (their /start sockets), and the service's health. */
  live: LiveInstances;
  serviceHealth: ServiceHealthReader;
};

/**
 * The composition root: configuration, secrets (generated into DATA_DIR on first start), the
 * database (migrated), the key vault, the sign-in throttle, the search proxy and the live browser
 * registry, wired once. The caller (server/portal/main.ts) publishes the result.
 */
export function createPortal(config: PortalConfig, env: NodeJS.ProcessEnv = process.env): Portal {
  const secrets = resolvePortalSecrets(config);
  const log = createLogger('portal', config.logLevel);
  for (const file of secrets.generated) {
    log.warn({ file }, 'generated a secret on first start; set NEXTAUTH_SECRET and KEY_ENCRYPTION_SECRET in production (see README)');
  }
  const data = SqlitePortalData.open(config.dataDir);
  let issuer: KeyIssuer = new NoIssuer();
  if (config.embeddedService) {
    const service = loadServiceConfig({ ...env, DATA_DIR: config.dataDir });
    issuer = new EmbeddedIssuer(config.dataDir, { ratePerMinute: service.search.defaultRatePerMinute, maxInstances: service.browser.maxInstancesPerKey });
  }
  const box = new SecretBox(secrets.keyEncryptionSecret, config.previousKeyEncryptionSecrets);
  const { idleMs, maxPerUser, maxPerTeam } = config.live;
  const live = new LiveInstances({ serviceUrl: config.serviceUrl, idleMs, maxPerUser, maxPerTeam, log: log.child({ part: 'live' }) });
  recordBrowserEvents(live, data, log);
  return {
    config,
    authSecret: secrets.authSecret,
    data,
    vault: { data, box, issuer, keyUse: new KeyUseLog(data) },
    throttle: new SignInThrottle(data, config.signIn),
    log,
    search: new SearchProxy(config.search),
    live,
    serviceHealth: new ServiceHealthReader(config.serviceUrl),
  };
}

/** The portal this process built: for pages, route handlers and the auth routes. */
export function portal(): Portal {
  const built = publishedPortal();
  if (!built) throw new Error('the portal was not built in this process: start it with `npm start` or `npm run portal` (server/portal/main.ts)');
  return built;
}
