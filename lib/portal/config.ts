import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import {
  baseUrlVar,
  CLUSTER_SECRET_REQUIRED,
  clusterSecretVar,
  defaultNodeId,
  nodeIdVar,
  ConfigError,
  databaseUrlVar,
  dataDirVar,
  intVar,
  parseEnv,
  portVar,
  redisUrlVar,
  type Env,
} from '#shared/config-schema.ts';

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));
const boolVar = (fallback: boolean | undefined) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1' || v === 'yes'));
const secretVar = z
  .string()
  .trim()
  .min(32, 'must be at least 32 characters (generate one with: openssl rand -base64 32)')
  .optional()
  .or(z.literal('').transform(() => undefined));

const schema = z.object({
  HOST: z
    .string()
    .trim()
    .min(1)
    .optional()
    .transform((v) => v ?? '127.0.0.1'),
  PORT: portVar(3000),
  SERVICE_PORT: portVar(3100),
  SERVICE_URL: baseUrlVar(['http:', 'https:']),
  SERVICE_OPERATOR_TOKEN: z.string().trim().min(32, 'must be at least 32 characters').optional(),
  DATA_DIR: dataDirVar,
  DATABASE_URL: databaseUrlVar,
  REDIS_URL: redisUrlVar,
  PORTAL_NODE_ID: nodeIdVar,
  PORTAL_NODE_URL: baseUrlVar(['http:', 'https:']),
  CLUSTER_SECRET: clusterSecretVar,
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional()
    .transform((v) => v ?? 'info'),
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .optional()
    .transform((v) => v ?? 'production'),
  NEXTAUTH_URL: baseUrlVar(['http:', 'https:']),
  NEXTAUTH_SECRET: secretVar,
  KEY_ENCRYPTION_SECRET: secretVar,
  KEY_ENCRYPTION_SECRET_PREVIOUS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  TRUST_PROXY: boolVar(false),
  SIGNUP_ENABLED: boolVar(true),
  SIGNIN_MAX_FAILURES: intVar(5, 2, 1000),
  SIGNIN_MAX_FAILURES_PER_ADDRESS: intVar(30, 2, 100_000),
  SIGNIN_LOCK_MINUTES: intVar(15, 1, 24 * 60),
  INVITE_TTL_HOURS: intVar(72, 1, 24 * 30),
  SEARCH_URL: baseUrlVar(['http:', 'https:']),
  PORTAL_SEARCH_CACHE_ENTRIES: intVar(1000, 0, 1_000_000),
  PORTAL_SEARCH_CACHE_TTL_SECONDS: intVar(300, 1, 7 * 24 * 3600),
  GITHUB_CLIENT_ID: optionalText,
  GITHUB_CLIENT_SECRET: optionalText,
  GOOGLE_CLIENT_ID: optionalText,
  GOOGLE_CLIENT_SECRET: optionalText,
  OIDC_ISSUER: baseUrlVar(['http:', 'https:']),
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_NAME: optionalText,
  LIVE_IDLE_MINUTES: intVar(10, 1, 24 * 60),
  LIVE_MAX_INSTANCES_PER_USER: intVar(3, 1, 100),
  LIVE_MAX_INSTANCES_PER_TEAM: intVar(10, 1, 1000),
});

export type PortalClusterConfig = {
  redisUrl: string;
  /** Stable across restarts, so that a restarted node ends what its predecessor left; unique per node. */
  nodeId: string;
  /** The address the other portal nodes reach this one at (node-to-node only, never shown to users). */
  nodeUrl: string;
  /** Signs node-to-node requests; the same on every node. */
  secret: string;
};

export type OAuthProviderConfig =
  | { kind: 'github'; clientId: string; clientSecret: string }
  | { kind: 'google'; clientId: string; clientSecret: string }
  | { kind: 'oidc'; issuer: string; clientId: string; clientSecret: string; name: string };

export type PortalConfig = {
  host: string;
  port: number;
  /** Base address of the service's public interface (browser flow and search). */
  serviceUrl: string;
  /**
   * The hosted search page: `url` is the search interface's base address (SEARCH_URL, default
   * serviceUrl); answers are cached for ttlMs, at most `entries` of them (0: no cache).
   */
  search: { url: string; cacheEntries: number; cacheTtlMs: number };
  /**
   * The service's operator token (SERVICE_OPERATOR_TOKEN): with it the portal issues, records and
   * revokes keys through the service's operator interface, beside it or remote (decision 0107).
   */
  operatorToken: string | undefined;
  dataDir: string;
  /** Where the portal's data lives: PostgreSQL at DATABASE_URL, or SQLite in DATA_DIR (decision 0090). */
  database: { kind: 'sqlite' } | { kind: 'postgres'; url: string };
  /**
   * Several portal nodes (REDIS_URL set, decision 0095): which node holds which team browser and
   * the dashboards' pushes go through Redis, and viewers are relayed to the holding node. Null: one
   * process, all in memory.
   */
  cluster: PortalClusterConfig | null;
  logLevel: string;
  dev: boolean;
  /** The portal's own public address (NEXTAUTH_URL); sign-in redirects point here. */
  publicUrl: string;
  /** Set when configured; otherwise generated into DATA_DIR on first start (see lib/portal/keys/secrets.ts). */
  authSecret: string | undefined;
  keyEncryptionSecret: string | undefined;
  /** Older encryption secrets, still accepted for reading while a rotation is under way. */
  previousKeyEncryptionSecrets: string[];
  trustProxy: boolean;
  signupEnabled: boolean;
  signIn: { maxFailures: number; maxFailuresPerAddress: number; lockMs: number };
  inviteTtlMs: number;
  oauth: OAuthProviderConfig[];
  /** Remote browsing: an instance nobody watches ends after idleMs; a user runs at most maxPerUser. */
  live: { idleMs: number; maxPerUser: number; maxPerTeam: number };
};

function pair(problems: string[], idName: string, secretName: string, id: string | undefined, secret: string | undefined): boolean {
  if (!id && !secret) return false;
  if (!id || !secret) {
    problems.push(`${id ? secretName : idName}: must be set together with ${id ? idName : secretName}`);
    return false;
  }
  return true;
}

/** Parse the portal's environment once, at start-up. Throws ConfigError with every problem. */
export function loadPortalConfig(env: Env = process.env): PortalConfig {
  const v = parseEnv(schema, env);
  const problems: string[] = [];
  const oauth: OAuthProviderConfig[] = [];
  if (pair(problems, 'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET', v.GITHUB_CLIENT_ID, v.GITHUB_CLIENT_SECRET)) {
    oauth.push({ kind: 'github', clientId: v.GITHUB_CLIENT_ID as string, clientSecret: v.GITHUB_CLIENT_SECRET as string });
  }
  if (pair(problems, 'GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', v.GOOGLE_CLIENT_ID, v.GOOGLE_CLIENT_SECRET)) {
    oauth.push({ kind: 'google', clientId: v.GOOGLE_CLIENT_ID as string, clientSecret: v.GOOGLE_CLIENT_SECRET as string });
  }
  const oidcParts = [v.OIDC_ISSUER, v.OIDC_CLIENT_ID, v.OIDC_CLIENT_SECRET];
  if (oidcParts.some(Boolean)) {
    if (oidcParts.every(Boolean)) {
      oauth.push({
        kind: 'oidc',
        issuer: v.OIDC_ISSUER as string,
        clientId: v.OIDC_CLIENT_ID as string,
        clientSecret: v.OIDC_CLIENT_SECRET as string,
        name: v.OIDC_NAME ?? 'Single sign-on',
      });
    } else {
      problems.push('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: set all three to enable OpenID Connect sign-in');
    }
  }
  const wildcard = v.HOST === '0.0.0.0' || v.HOST === '::';
  if (v.REDIS_URL && !v.CLUSTER_SECRET) problems.push(CLUSTER_SECRET_REQUIRED);
  if (v.REDIS_URL && !v.PORTAL_NODE_URL && wildcard)
    problems.push(`PORTAL_NODE_URL: must be set when REDIS_URL is and HOST is ${v.HOST}: the address other portal nodes reach this one at`);
  if (problems.length) throw new ConfigError(problems);
  const publicHost = v.HOST === '0.0.0.0' || v.HOST === '::' ? 'localhost' : v.HOST;
  return {
    host: v.HOST,
    port: v.PORT,
    serviceUrl: v.SERVICE_URL ?? `http://127.0.0.1:${v.SERVICE_PORT}`,
    search: {
      url: v.SEARCH_URL ?? v.SERVICE_URL ?? `http://127.0.0.1:${v.SERVICE_PORT}`,
      cacheEntries: v.PORTAL_SEARCH_CACHE_ENTRIES,
      cacheTtlMs: v.PORTAL_SEARCH_CACHE_TTL_SECONDS * 1000,
    },
    operatorToken: v.SERVICE_OPERATOR_TOKEN,
    dataDir: isAbsolute(v.DATA_DIR) ? v.DATA_DIR : resolve(v.DATA_DIR),
    database: v.DATABASE_URL ? { kind: 'postgres', url: v.DATABASE_URL } : { kind: 'sqlite' },
    cluster:
      v.REDIS_URL && v.CLUSTER_SECRET
        ? {
            redisUrl: v.REDIS_URL,
            nodeId: v.PORTAL_NODE_ID ?? defaultNodeId(v.PORT),
            nodeUrl: v.PORTAL_NODE_URL ?? `http://${v.HOST.includes(':') ? `[${v.HOST}]` : v.HOST}:${v.PORT}`,
            secret: v.CLUSTER_SECRET,
          }
        : null,
    logLevel: v.LOG_LEVEL,
    dev: v.NODE_ENV === 'development',
    publicUrl: v.NEXTAUTH_URL ?? `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${v.PORT}`,
    authSecret: v.NEXTAUTH_SECRET,
    keyEncryptionSecret: v.KEY_ENCRYPTION_SECRET,
    previousKeyEncryptionSecrets: v.KEY_ENCRYPTION_SECRET_PREVIOUS,
    trustProxy: v.TRUST_PROXY ?? false,
    signupEnabled: v.SIGNUP_ENABLED ?? true,
    signIn: {
      maxFailures: v.SIGNIN_MAX_FAILURES,
      maxFailuresPerAddress: v.SIGNIN_MAX_FAILURES_PER_ADDRESS,
      lockMs: v.SIGNIN_LOCK_MINUTES * 60_000,
    },
    inviteTtlMs: v.INVITE_TTL_HOURS * 3_600_000,
    oauth,
    live: { idleMs: v.LIVE_IDLE_MINUTES * 60_000, maxPerUser: v.LIVE_MAX_INSTANCES_PER_USER, maxPerTeam: v.LIVE_MAX_INSTANCES_PER_TEAM },
  };
}
