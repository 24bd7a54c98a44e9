import type { Logger } from 'pino';
import type { BrowserFleet } from '../../lib/browser/fleet.ts';
import type { BrowserPool } from '../../lib/browser/pool.ts';
import type { IsolationReport } from '../../lib/browser/sandbox/probe.ts';
import type { ServiceConfig } from '../../lib/config/service.ts';
import type { KeyStore } from '../../lib/keys/store.ts';
import type { SlidingWindowLimiter } from '../../lib/ratelimit/sliding-window.ts';
import type { SearchBackend } from '../../lib/search/backend.ts';
import type { ServiceMetrics } from '../../lib/observability/metrics.ts';

/** What the service's handlers are given. */
export type ServiceContext = {
  config: ServiceConfig;
  /** Public base addresses (http and ws), known once the service listens. */
  advertised: { http: string; ws: string };
  log: Logger;
  metrics: ServiceMetrics;
  keys: KeyStore;
  pool: BrowserPool;
  fleet: BrowserFleet;
  /** The search index engine and the per-key limit of the search API. */
  search: SearchBackend;
  searchLimiter: SlidingWindowLimiter;
  /** How browser instances are isolated on this host (probed at start). */
  isolation: IsolationReport;
};
