import { loadPortalConfig, type PortalConfig } from '../config/portal.ts';
import { loadServiceConfig } from '../config/service.ts';
import { SecretBox } from '../crypto/secretbox.ts';
import type { PortalData } from '../db/portal-data.ts';
import { SqlitePortalData } from '../db/portal-sqlite.ts';
import { createLogger, type Logger } from '../observability/log.ts';
import { KeyUseLog } from './audit.ts';
import { EmbeddedIssuer, NoIssuer, type KeyIssuer } from './issuer.ts';
import { SearchProxy } from './search.ts';
import { resolvePortalSecrets } from './secrets.ts';
import { SignInThrottle } from './throttle.ts';
import type { Vault } from './vault.ts';

/** Everything the portal's pages and routes need, built once per process from the environment. */
export type Portal = {
  config: PortalConfig;
  authSecret: string;
  data: PortalData;
  vault: Vault;
  throttle: SignInThrottle;
  log: Logger;
  /** The hosted search page's upstream, answer cache and last-seen limits (decision 0040). */
  search: SearchProxy;
};

export function createPortal(config: PortalConfig, env: NodeJS.ProcessEnv = process.env): Portal {
  const secrets = resolvePortalSecrets(config);
  const log = createLogger('portal', config.logLevel);
  const data = SqlitePortalData.open(config.dataDir);
  let issuer: KeyIssuer = new NoIssuer();
  if (config.embeddedService) {
    const service = loadServiceConfig({ ...env, DATA_DIR: config.dataDir });
    issuer = new EmbeddedIssuer(config.dataDir, { ratePerMinute: service.search.defaultRatePerMinute, maxInstances: service.browser.maxInstancesPerKey });
  }
  const box = new SecretBox(secrets.keyEncryptionSecret, config.previousKeyEncryptionSecrets);
  return {
    config,
    authSecret: secrets.authSecret,
    data,
    vault: { data, box, issuer, keyUse: new KeyUseLog(data) },
    throttle: new SignInThrottle(data, config.signIn),
    log,
    search: new SearchProxy(config.search),
  };
}

const KEY = Symbol.for('periscope.portal');
type Holder = { [KEY]?: Portal };

/**
 * The process-wide portal context. Kept on globalThis so every bundle of the Next app (pages,
 * route handlers, the auth routes) shares one database connection.
 */
export function portal(): Portal {
  const holder = globalThis as Holder;
  holder[KEY] ??= createPortal(loadPortalConfig());
  return holder[KEY];
}
