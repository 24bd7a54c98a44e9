import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus metrics, one registry per service instance (tests start several). */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly instancesLive = new Gauge({
    name: 'periscope_browser_instances_live',
    help: 'Browser instances held by an open /start socket',
    registers: [this.registry],
  });
  readonly poolSize = new Gauge({
    name: 'periscope_browser_pool_size',
    help: 'Started browsers waiting in the warm pool',
    registers: [this.registry],
  });
  readonly provisionSeconds = new Histogram({
    name: 'periscope_browser_provision_seconds',
    help: 'Time from an authorised /start to the browser id being sent',
    labelNames: ['pool'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly actionSeconds = new Histogram({
    name: 'periscope_page_action_seconds',
    help: 'Time of a page action that answered (POST /v0/fetch, /v0/screenshot, /v0/pdf), browser included',
    labelNames: ['action'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly launchSeconds = new Histogram({
    name: 'periscope_browser_launch_seconds',
    help: 'Time for one Chromium to start and answer',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly instancesEnded = new Counter({
    name: 'periscope_browser_instances_ended_total',
    help: 'Instances ended, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly startQueue = new Gauge({
    name: 'periscope_start_queue_waiting',
    help: 'Starts waiting for room to start a browser (/start?queue=)',
    registers: [this.registry],
  });
  readonly startQueueSeconds = new Histogram({
    name: 'periscope_start_queue_wait_seconds',
    help: 'How long a start waited in the queue before it got room',
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly profileSaves = new Counter({
    name: 'periscope_profile_saves_total',
    help: 'Saves of browser profiles as their browser ended: saved, too-large (refused, the old one kept), failed',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly profileWork = new Gauge({
    name: 'periscope_profile_work',
    help: 'Restores and saves of browser profiles running now and waiting for their turn (BROWSER_PROFILE_CONCURRENCY)',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  readonly profileWarm = new Gauge({
    name: 'periscope_profile_warm_browsers',
    help: 'Browsers started ahead from saved profiles, waiting for the next start from each (BROWSER_PROFILE_WARM)',
    registers: [this.registry],
  });
  readonly startRefused = new Counter({
    name: 'periscope_browser_start_refused_total',
    help: '/start requests refused, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly egressRefused = new Counter({
    name: 'periscope_egress_refused_total',
    help: 'Connections from browsers the egress proxy refused: denied_address (the policy), unresolved (no such name); through a tenant’s own proxy, proxy_denied (its address, by the policy), proxy_auth (its login failed), proxy_refused, proxy_unreachable',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly proxyBytes = new Counter({
    name: 'periscope_cdp_proxy_bytes_total',
    help: 'Bytes relayed by the CDP proxy',
    labelNames: ['direction'] as const,
    registers: [this.registry],
  });
  readonly proxyConnections = new Gauge({
    name: 'periscope_cdp_proxy_connections',
    help: 'Open CDP proxy connections',
    registers: [this.registry],
  });
  readonly isolation = new Gauge({
    name: 'periscope_browser_isolation',
    help: 'How browser instances are isolated: 1 for the mode in force (sandbox, single-tenant, unavailable) and for each layer present',
    labelNames: ['mode', 'layer'] as const,
    registers: [this.registry],
  });
  readonly httpRequests = new Counter({
    name: 'periscope_http_requests_total',
    help: 'HTTP requests, by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  readonly #beforeScrape: (() => void)[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The isolation probe's findings, as gauges (one series per layer, 0 or 1). */
  reportIsolation(r: {
    mode: string;
    uidPerInstance: boolean;
    chromiumSandbox: boolean;
    network: string;
    cgroups: { memory: boolean; pids: boolean } | null;
  }): void {
    const layers: Record<string, boolean> = {
      uid_per_instance: r.uidPerInstance,
      chromium_sandbox: r.chromiumSandbox,
      network_namespace: r.network === 'namespace',
      memory_limit: r.cgroups?.memory ?? false,
      pids_limit: r.cgroups?.pids ?? false,
    };
    for (const [layer, on] of Object.entries(layers)) this.isolation.set({ mode: r.mode, layer }, on ? 1 : 0);
  }

  /** Run `fn` before each scrape, for figures read from counters kept elsewhere. */
  beforeScrape(fn: () => void): void {
    this.#beforeScrape.push(fn);
  }

  /** The text exposition, after bringing the figures up to date. */
  async scrape(): Promise<string> {
    for (const fn of this.#beforeScrape) fn();
    return this.registry.metrics();
  }
}
