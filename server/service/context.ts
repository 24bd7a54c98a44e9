import type { Logger } from 'pino';
import type { BrowserFleet } from '#service/browser/fleet.ts';
import type { ConnectTickets } from '#service/browser/connect-tickets.ts';
import type { BrowserHistory } from '#service/browser/history.ts';
import type { Recordings } from '#service/browser/recording/recordings.ts';
import type { LaunchHealth } from '#service/browser/launch-health.ts';
import type { Launcher } from '#service/browser/launcher.ts';
import type { BrowserPool } from '#service/browser/pool.ts';
import type { IsolationReport } from '#service/browser/sandbox/probe.ts';
import type { ServiceConfig } from '#service/config.ts';
import type { KeyStore } from '#service/keys/store.ts';
import type { PageActions } from '#service/actions/actions.ts';
import type { Profiles } from '#service/profiles/profiles.ts';
import type { RateLimiter } from '#service/ratelimit/limiter.ts';
import type { SearchBackend } from '#service/search/backend.ts';
import type { ServiceMetrics } from '#service/metrics.ts';
import type { ClusterGateway } from './cluster.ts';

/** What the service's handlers are given. */
export type ServiceContext = {
  config: ServiceConfig;
  /** Public base addresses (http and ws), known once the service listens. */
  advertised: { http: string; ws: string };
  log: Logger;
  metrics: ServiceMetrics;
  keys: KeyStore;
  pool: BrowserPool;
  /** Launches browsers, one prepared ahead; null when this host cannot isolate them. */
  launcher: Pick<Launcher<unknown>, 'prepared'> | null;
  /** Whether launches keep failing, and why (/healthz). */
  launchHealth: Pick<LaunchHealth, 'problem'>;
  fleet: BrowserFleet;
  /** Connect tickets of `/json/version`'s `connectUrl`. */
  tickets: ConnectTickets;
  /** Every key's live and recently ended browsers. */
  history: BrowserHistory;
  /** Session recordings of the keys that turn them on. */
  recordings: Recordings;
  /** Saved browser profiles of every key (`/start?profile=`, /v0/profiles). */
  profiles: Profiles;
  /** The search index engine and the per-key limit of the search API. */
  search: SearchBackend;
  searchLimiter: RateLimiter;
  /** The one-call page actions and their own per-key limit. */
  actions: PageActions;
  actionLimiter: RateLimiter;
  /** How browser instances are isolated on this host (probed at start). */
  isolation: IsolationReport;
  /** Several nodes (REDIS_URL): how this node reaches the others; null on a single node. */
  cluster: Pick<ClusterGateway, 'nodeId' | 'liveElsewhere' | 'isFromNode' | 'health' | 'ask' | 'forwardTo'> | null;
};
