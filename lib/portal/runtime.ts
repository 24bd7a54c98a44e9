import type { PortalConfig } from './config.ts';
import { SecretBox } from './crypto/secretbox.ts';
import type { PortalData } from './data/portal-data.ts';
import { openPortalData } from './data/open.ts';
import { createLogger, type Logger } from '#shared/log.ts';
import { TeamBrowsers } from './live/team-browsers.ts';
import { ServiceHealthReader } from './service-client/health.ts';
import { KeyUseLog } from './teams/audit.ts';
import { recordBrowserEvents, recordEnded } from './live/browsers.ts';
import { LocalDirectory, type BrowserDirectory } from './live/directory.ts';
import { joinCluster, type PortalCluster } from './cluster/join.ts';
import { publishedPortal } from './handle.ts';
import { NoIssuer, ServiceIssuer, type KeyIssuer } from './keys/issuer.ts';
import { OperatorClient } from './service-client/operator.ts';
import { SearchProxy } from './search/search.ts';
import { resolvePortalSecrets } from './keys/secrets.ts';
import { SignInThrottle } from './accounts/throttle.ts';
import type { Vault } from './keys/vault.ts';
import { KeyBrowsers } from './live/key-browsers.ts';

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
  /** The browsers this process holds open for its users (their /start sockets). */
  live: TeamBrowsers;
  /** The team browsers of every portal node (this process's own in a single process; decision 0095). */
  browsers: BrowserDirectory;
  /** Node-to-node trust and requests when the portal runs as several nodes; null in a single process. */
  cluster: PortalCluster | null;
  /** Every live browser of the team's keys, whoever started it (the service's list). */
  keyBrowsers: KeyBrowsers;
  serviceHealth: ServiceHealthReader;
};

/**
 * The composition root: configuration, secrets (generated into DATA_DIR on first start), the
 * database (SQLite in DATA_DIR or PostgreSQL at DATABASE_URL, migrated), the key vault, the sign-in throttle, the search proxy and the live browser
 * registry, wired once. The caller (server/portal/main.ts) publishes the result.
 */
export async function createPortal(config: PortalConfig): Promise<Portal> {
  const secrets = resolvePortalSecrets(config);
  const log = createLogger('portal', config.logLevel);
  for (const file of secrets.generated) {
    log.warn({ file }, 'generated a secret on first start; set NEXTAUTH_SECRET and KEY_ENCRYPTION_SECRET in production (see README)');
  }
  const data = await openPortalData(config);
  // Keys are issued through the service's operator interface, beside it or remote (decision 0107).
  const issuer: KeyIssuer = config.operatorToken
    ? new ServiceIssuer(new OperatorClient(config.serviceUrl, config.operatorToken))
    : new NoIssuer();
  const box = new SecretBox(secrets.keyEncryptionSecret, config.previousKeyEncryptionSecrets);
  const { idleMs, maxPerUser, maxPerTeam } = config.live;
  let browsers: BrowserDirectory | null = null;
  const live = new TeamBrowsers({
    serviceUrl: config.serviceUrl,
    idleMs,
    maxPerUser,
    maxPerTeam,
    log: log.child({ part: 'live' }),
    elsewhere: (teamId, userId) => browsers?.elsewhere(teamId, userId) ?? Promise.resolve({ team: 0, user: 0 }),
  });
  recordBrowserEvents(live, data, log);
  const cluster = config.cluster
    ? await joinCluster(config.cluster, live, (ended) => recordEnded(data, ended, log), log.child({ part: 'cluster' }))
    : null;
  browsers = cluster?.directory ?? new LocalDirectory(live);
  const vault: Vault = { data, box, issuer, keyUse: new KeyUseLog(data) };
  return {
    config,
    authSecret: secrets.authSecret,
    data,
    vault,
    throttle: new SignInThrottle(data, config.signIn),
    log,
    search: new SearchProxy(config.search),
    live,
    browsers,
    cluster,
    keyBrowsers: new KeyBrowsers({ serviceUrl: config.serviceUrl, vault, log: log.child({ part: 'key-browsers' }) }),
    serviceHealth: new ServiceHealthReader(config.serviceUrl),
  };
}

/** The portal this process built: for pages, route handlers and the auth routes. */
export function portal(): Portal {
  const built = publishedPortal();
  if (!built)
    throw new Error('the portal was not built in this process: start it with `npm start` or `npm run portal` (server/portal/main.ts)');
  return built;
}
