import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { parseCidrList, type CidrBlock } from './net/cidr.ts';
import {
  baseUrlVar,
  CLUSTER_SECRET_REQUIRED,
  clusterSecretVar,
  ConfigError,
  defaultNodeId,
  nodeIdVar,
  databaseUrlVar,
  dataDirVar,
  intVar,
  listVar,
  parseEnv,
  portVar,
  redisUrlVar,
  type Env,
} from '#shared/config-schema.ts';

const schema = z.object({
  HOST: z
    .string()
    .trim()
    .min(1)
    .optional()
    .transform((v) => v ?? '127.0.0.1'),
  SERVICE_PORT: portVar(3100),
  DATA_DIR: dataDirVar,
  DATABASE_URL: databaseUrlVar,
  REDIS_URL: redisUrlVar,
  NODE_ID: nodeIdVar,
  NODE_URL: baseUrlVar(['http:']),
  CLUSTER_SECRET: clusterSecretVar,
  PUBLIC_BROWSER_URL: baseUrlVar(['http:', 'https:']),
  PUBLIC_BROWSER_WS_URL: baseUrlVar(['ws:', 'wss:']),
  HTTP_HEADERS_TIMEOUT_SECONDS: intVar(10, 1, 300),
  HTTP_REQUEST_TIMEOUT_SECONDS: intVar(300, 1, 3600),
  MAX_CONNECTIONS_PER_ADDRESS: intVar(256, 0, 1_000_000),
  METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  SERVICE_OPERATOR_TOKEN: z.string().trim().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional()
    .transform((v) => v ?? 'info'),
  CHROME_PATH: z.string().trim().min(1).optional(),
  BROWSER_POOL_SIZE: intVar(2, 0, 64),
  BROWSER_CAPACITY: intVar(10, 1, 1000),
  SHUTDOWN_DRAIN_SECONDS: intVar(0, 0, 24 * 3600),
  BROWSER_MAX_INSTANCES_PER_KEY: intVar(5, 1, 1000),
  BROWSER_MAX_LIFETIME_SECONDS: intVar(6 * 3600, 1, 7 * 24 * 3600),
  BROWSER_HISTORY_HOURS: intVar(24, 0, 31 * 24),
  BROWSER_LAUNCH_TIMEOUT_SECONDS: intVar(30, 1, 300),
  BROWSER_EGRESS_ALLOW: listVar,
  BROWSER_ISOLATION: z
    .enum(['sandbox', 'single-tenant'])
    .optional()
    .transform((v) => v ?? 'sandbox'),
  BROWSER_UID_BASE: intVar(0, 1000, 2_000_000_000),
  BROWSER_MEMORY_LIMIT_MB: intVar(2048, 128, 1_048_576),
  BROWSER_PIDS_LIMIT: intVar(2048, 64, 1_000_000),
  BROWSER_INSTANCES_DIR: z.string().trim().min(1).optional(),
  BROWSER_BWRAP_PATH: z.string().trim().min(1).optional(),
  BROWSER_FILE_MAX_MB: intVar(100, 1, 10_240),
  BROWSER_UPLOADS_MAX_MB: intVar(500, 1, 102_400),
  BROWSER_DISK_LIMIT_MB: intVar(2048, 16, 10_485_760),
  BROWSER_PROFILE_MAX_MB: intVar(200, 1, 10_240),
  BROWSER_PROFILE_CONCURRENCY: intVar(2, 1, 64),
  BROWSER_PROFILE_WARM: intVar(2, 0, 64),
  BROWSER_PROFILES_DIR: z.string().trim().min(1).optional(),
  PROFILE_ENCRYPTION_SECRET: clusterSecretVar,
  PROFILE_ENCRYPTION_SECRET_PREVIOUS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every((s) => s.length >= 32), 'every previous secret is at least 32 characters'),
  RECORDING_MAX_MB: intVar(200, 1, 102_400),
  RECORDING_RETENTION_HOURS: intVar(7 * 24, 1, 366 * 24),
  RECORDING_FPS: intVar(2, 1, 15),
  RECORDING_PRUNE_SECONDS: intVar(3600, 1, 86_400),
  BROWSER_DISK_CHECK_SECONDS: intVar(2, 1, 3600),
  START_PING_INTERVAL_MS: intVar(20_000, 100, 60_000),
  SEARCH_RATE_PER_MINUTE: intVar(40, 1, 1_000_000),
  SEARCH_MAX_BODY_BYTES: intVar(16 * 1024, 512, 1024 * 1024),
  SEARCH_RATE_WINDOW_SECONDS: intVar(60, 1, 3600),
  ACTIONS_RATE_PER_MINUTE: intVar(60, 1, 1_000_000),
  ACTIONS_RATE_WINDOW_SECONDS: intVar(60, 1, 3600),
  ACTIONS_MAX_PDF_MB: intVar(100, 1, 2048),
  SEARCH_INDEX_PATH: z.string().trim().min(1).optional(),
  SEARCH_INDEX_DIR: z.string().trim().min(1).optional(),
  SEARCH_INDEX_CHECK_SECONDS: intVar(10, 1, 300),
  SEARCH_RESULTS: intVar(10, 1, 50),
  SEARCH_CACHE_SIZE: intVar(2000, 0, 1_000_000),
  // One core is left to the event loop (HTTP, the CDP relay): decision 0018.
  SEARCH_WORKERS: intVar(Math.max(1, Math.min(4, availableParallelism() - 1)), 0, 64),
  SEARCH_LIST_CACHE_MB: intVar(undefined, 1, 65_536),
  MCP_SESSION_IDLE_SECONDS: intVar(300, 1, 7 * 24 * 3600),
});

export type ServiceConfig = {
  host: string;
  port: number;
  dataDir: string;
  /** Where the keys and the browsers' history live: PostgreSQL at DATABASE_URL, or SQLite in DATA_DIR. */
  database: { kind: 'sqlite' } | { kind: 'postgres'; url: string };
  /**
   * Several service nodes (REDIS_URL set): what is shared and fast-changing lives in Redis, and
   * each node says who it is and where the others reach it. Null: one node, all in memory.
   */
  cluster: {
    redisUrl: string;
    /** Stable across restarts, so that a restarted node ends what its predecessor left. */
    nodeId: string;
    /** The address other nodes reach this one at (never advertised to clients). */
    nodeUrl: string | undefined;
    /** Signs node-to-node requests; the same on every node. */
    secret: string;
  } | null;
  /** http(s) and ws(s) base addresses advertised to clients, no trailing slash; when unset, the listening address. */
  publicUrl: string | undefined;
  publicWsUrl: string | undefined;
  logLevel: string;
  /** Deadlines and per-address cap of the HTTP server (server/http/connection-guard.ts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; perAddress: number };
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** When set, the operator interface for keys (/v0/operator/keys) answers `Authorization: Bearer <token>`; off when unset. */
  operatorToken: string | undefined;
  chromePath: string | undefined;
  /**
   * On SIGTERM, how long the node keeps its live browsers while it takes no new ones (and tells the
   * balancer and the cluster so) before it stops; 0 stops at once. A second signal stops at once.
   */
  shutdownDrainMs: number;
  browser: {
    poolSize: number;
    capacity: number;
    maxInstancesPerKey: number;
    maxLifetimeMs: number;
    /** How long an ended browser stays in its key's list (GET /v0/browsers). */
    historyMs: number;
    launchTimeoutMs: number;
    egressAllow: CidrBlock[];
    pingIntervalMs: number;
    /** `sandbox`: each instance isolated by the operating system (refused where the host cannot); `single-tenant`: not isolated. */
    isolation: 'sandbox' | 'single-tenant';
    /** The bubblewrap binary (default: found in /usr/bin, /bin, /usr/local/bin). */
    bwrapPath: string | undefined;
    /** Where each instance's folders live (outside DATA_DIR: instance uids must be able to reach them). */
    instancesDir: string;
    /** First host uid of the instances' range (one uid per instance). */
    uidBase: number;
    memoryLimitBytes: number;
    pidsLimit: number;
    /** Largest uploaded file, and all of an instance's uploads together. */
    fileMaxBytes: number;
    uploadsMaxBytes: number;
    /** What one instance's folders may hold on disk; past it the instance ends (4413). */
    diskLimitBytes: number;
    diskCheckMs: number;
  };
  /** Saved browser profiles (docs/api.md, "Saved profiles"; decision 0106). */
  profiles: {
    /** The folder of sealed profiles, shared by every node (default DATA_DIR/profiles). */
    dir: string;
    /** What one profile may hold, counted while it is saved. */
    maxBytes: number;
    /** How many restores and saves of profiles run at once on a node; each holds up to about three times a profile in memory. */
    concurrency: number;
    /** BROWSER_PROFILE_WARM: how many profiles a node keeps a browser started ahead from (warm-profiles.ts); 0 for none. */
    warm: number;
    /**
     * The secret profiles are sealed with, and earlier ones that still open them during a
     * rotation; null: CLUSTER_SECRET with several nodes, else one generated into DATA_DIR/secrets.
     */
    secret: string | null;
    previousSecrets: string[];
  };
  /** Session recordings of the keys that turn them on (docs/api.md, "Session recordings"). */
  recording: {
    /** DATA_DIR/recordings: one folder per recorded browser. */
    dir: string;
    /** What one session's recording may hold. */
    maxBytes: number;
    /** How long a recording is kept after its browser ended. */
    retentionMs: number;
    /** Most screen frames kept per second. */
    fps: number;
    /** How often expired recordings (and old history) are removed; also once at start. */
    pruneMs: number;
  };
  /** The one-call page actions (POST /v0/fetch, /v0/screenshot, /v0/pdf). */
  actions: {
    /** A key's limit a window when it has none of its own (npm run keys -- create --actions-per-minute). */
    defaultRatePerMinute: number;
    rateWindowMs: number;
    /** The largest PDF a page action answers; a page that prints to more is refused while it is read. */
    maxPdfBytes: number;
  };
  search: {
    defaultRatePerMinute: number;
    maxBodyBytes: number;
    /** Length of the sliding rate-limit window; a key's limit counts requests per window. */
    rateWindowMs: number;
    /** The SQLite index file (default DATA_DIR/index.db); unused when `generations` is set. */
    indexPath: string;
    /** SEARCH_INDEX_DIR: a folder of immutable index generations that several nodes share (decision
     * 0094), checked for a newer one every `checkMs` (and at once on news through Redis); null: the
     * one live file at `indexPath`. */
    generations: { dir: string; checkMs: number } | null;
    /** Results per answer. */
    results: number;
    /** Answers remembered until the index changes (0: none). */
    cacheSize: number;
    /** Query worker threads (0: search on the event loop). */
    workers: number;
    /** Posting lists each query thread keeps unpacked, in bytes (decision 0088). */
    listCacheBytes: number;
  };
  /** The MCP server at /mcp (docs/decisions/0101-mcp-server.md): a session unused this long ends, and its browser with it. */
  mcp: { idleMs: number };
};

/** The addresses to advertise: the configured ones, else those of the socket the service listens on. */
export function advertisedUrls(config: ServiceConfig, listening: { address: string; port: number }): { http: string; ws: string } {
  const wildcard = listening.address === '0.0.0.0' || listening.address === '::';
  const host = wildcard ? '127.0.0.1' : listening.address.includes(':') ? `[${listening.address}]` : listening.address;
  const http = config.publicUrl ?? `http://${host}:${listening.port}`;
  return { http, ws: config.publicWsUrl ?? http.replace(/^http/, 'ws') };
}

/**
 * Instance uids start at 1,000,000,000, far above the ranges that accounts and /etc/subuid use, in
 * a block of 2,048 chosen by DATA_DIR so that two services on one host do not share uids.
 */
export const UID_BLOCK = 2_048;

export function defaultUidBase(dataDir: string): number {
  let h = 0x811c9dc5;
  for (const c of dataDir) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return 1_000_000_000 + (h % 16_384) * UID_BLOCK;
}

/**
 * Instance folders live in the temp folder by default, named after the uid range (so, after DATA_DIR):
 * every instance uid must be able to walk the path to its own folders, which DATA_DIR (often 0700,
 * and holding secrets) must not allow.
 */
export const defaultInstancesDir = (uidBase: number): string => join(tmpdir(), `periscope-browsers-${uidBase}`);

/**
 * Each query thread's lists in memory (SEARCH_LIST_CACHE_MB) unless told: a tenth of the machine's
 * memory shared by the `workers` threads (one when they run on the event loop), from 384 MB to
 * 3 GB each. The lists fill it only as queries read them: the corpus alone reads under 100 MB, and
 * the dev questions read about 2 GB at 10⁶ pages, where the 384 MB kept before answered them 1.7
 * times slower (decision 0147). A thread keeps the pages' ranking signals in a quarter as much
 * again (query.ts, decision 0157), and the long lists' passage blocks in a sixth (decision 0158).
 */
export function defaultListCacheMb(workers: number, memory = totalmem()): number {
  return Math.min(3072, Math.max(384, Math.floor(memory / 10 / Math.max(1, workers) / 2 ** 20)));
}

/** Parse the service's environment once, at start-up. Throws ConfigError with every problem. */
export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  const v = parseEnv(schema, env);
  const egressAllow = parseCidrList(v.BROWSER_EGRESS_ALLOW, 'BROWSER_EGRESS_ALLOW');
  const publicUrl = v.PUBLIC_BROWSER_URL ?? v.PUBLIC_BROWSER_WS_URL?.replace(/^ws/, 'http');
  const publicWsUrl = v.PUBLIC_BROWSER_WS_URL ?? publicUrl?.replace(/^http/, 'ws');
  const dataDir = isAbsolute(v.DATA_DIR) ? v.DATA_DIR : resolve(v.DATA_DIR);
  const uidBase = v.BROWSER_UID_BASE || defaultUidBase(dataDir);
  if (v.SEARCH_INDEX_PATH && v.SEARCH_INDEX_DIR)
    throw new ConfigError([
      'SEARCH_INDEX_DIR: set either it (a folder of index generations several nodes share) or SEARCH_INDEX_PATH (one index file), not both',
    ]);
  if (v.REDIS_URL && !v.CLUSTER_SECRET) throw new ConfigError([CLUSTER_SECRET_REQUIRED]);
  return {
    host: v.HOST,
    port: v.SERVICE_PORT,
    dataDir,
    database: v.DATABASE_URL ? { kind: 'postgres', url: v.DATABASE_URL } : { kind: 'sqlite' },
    cluster:
      v.REDIS_URL && v.CLUSTER_SECRET
        ? {
            redisUrl: v.REDIS_URL,
            nodeId: v.NODE_ID ?? defaultNodeId(v.SERVICE_PORT),
            nodeUrl: v.NODE_URL,
            secret: v.CLUSTER_SECRET,
          }
        : null,
    publicUrl,
    publicWsUrl,
    logLevel: v.LOG_LEVEL,
    metricsToken: v.METRICS_TOKEN,
    operatorToken: v.SERVICE_OPERATOR_TOKEN,
    http: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      perAddress: v.MAX_CONNECTIONS_PER_ADDRESS,
    },
    chromePath: v.CHROME_PATH,
    shutdownDrainMs: v.SHUTDOWN_DRAIN_SECONDS * 1000,
    browser: {
      poolSize: v.BROWSER_POOL_SIZE,
      capacity: v.BROWSER_CAPACITY,
      maxInstancesPerKey: v.BROWSER_MAX_INSTANCES_PER_KEY,
      maxLifetimeMs: v.BROWSER_MAX_LIFETIME_SECONDS * 1000,
      historyMs: v.BROWSER_HISTORY_HOURS * 3_600_000,
      launchTimeoutMs: v.BROWSER_LAUNCH_TIMEOUT_SECONDS * 1000,
      egressAllow,
      pingIntervalMs: v.START_PING_INTERVAL_MS,
      isolation: v.BROWSER_ISOLATION,
      uidBase,
      bwrapPath: v.BROWSER_BWRAP_PATH,
      instancesDir: v.BROWSER_INSTANCES_DIR ? resolve(v.BROWSER_INSTANCES_DIR) : defaultInstancesDir(uidBase),
      memoryLimitBytes: v.BROWSER_MEMORY_LIMIT_MB * 1024 * 1024,
      pidsLimit: v.BROWSER_PIDS_LIMIT,
      fileMaxBytes: v.BROWSER_FILE_MAX_MB * 1024 * 1024,
      uploadsMaxBytes: v.BROWSER_UPLOADS_MAX_MB * 1024 * 1024,
      diskLimitBytes: v.BROWSER_DISK_LIMIT_MB * 1024 * 1024,
      diskCheckMs: v.BROWSER_DISK_CHECK_SECONDS * 1000,
    },
    profiles: {
      dir: resolve(dataDir, v.BROWSER_PROFILES_DIR ?? 'profiles'),
      maxBytes: v.BROWSER_PROFILE_MAX_MB * 1024 * 1024,
      concurrency: v.BROWSER_PROFILE_CONCURRENCY,
      warm: v.BROWSER_PROFILE_WARM,
      secret: v.PROFILE_ENCRYPTION_SECRET ?? null,
      previousSecrets: v.PROFILE_ENCRYPTION_SECRET_PREVIOUS,
    },
    recording: {
      dir: resolve(dataDir, 'recordings'),
      maxBytes: v.RECORDING_MAX_MB * 1024 * 1024,
      retentionMs: v.RECORDING_RETENTION_HOURS * 3_600_000,
      fps: v.RECORDING_FPS,
      pruneMs: v.RECORDING_PRUNE_SECONDS * 1000,
    },
    actions: {
      defaultRatePerMinute: v.ACTIONS_RATE_PER_MINUTE,
      rateWindowMs: v.ACTIONS_RATE_WINDOW_SECONDS * 1000,
      maxPdfBytes: v.ACTIONS_MAX_PDF_MB * 1024 * 1024,
    },
    search: {
      defaultRatePerMinute: v.SEARCH_RATE_PER_MINUTE,
      maxBodyBytes: v.SEARCH_MAX_BODY_BYTES,
      rateWindowMs: v.SEARCH_RATE_WINDOW_SECONDS * 1000,
      indexPath: resolve(dataDir, v.SEARCH_INDEX_PATH ?? 'index.db'),
      generations: v.SEARCH_INDEX_DIR ? { dir: resolve(dataDir, v.SEARCH_INDEX_DIR), checkMs: v.SEARCH_INDEX_CHECK_SECONDS * 1000 } : null,
      results: v.SEARCH_RESULTS,
      cacheSize: v.SEARCH_CACHE_SIZE,
      workers: v.SEARCH_WORKERS,
      listCacheBytes: (v.SEARCH_LIST_CACHE_MB ?? defaultListCacheMb(v.SEARCH_WORKERS)) * 1024 * 1024,
    },
    mcp: { idleMs: v.MCP_SESSION_IDLE_SECONDS * 1000 },
  };
}
