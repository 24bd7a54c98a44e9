import { rmdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { PreparedLaunch, type StartHooks } from '#service/browser/chromium.ts';
import { LaunchHealth } from '#service/browser/launch-health.ts';
import { Launcher } from '#service/browser/launcher.ts';
import { EgressPolicy } from '#service/browser/egress/policy.ts';
import { EgressProxy } from '#service/browser/egress/proxy.ts';
import { resolveChromium } from '#service/browser/executable.ts';
import { DiskGuard } from '#service/browser/disk-guard.ts';
import { BrowserFleet } from '#service/browser/fleet.ts';
import { ConnectTickets } from '#service/browser/connect-tickets.ts';
import { SINGLE_NODE } from '#service/browser/history.ts';
import { Recordings } from '#service/browser/recording/recordings.ts';
import { prepareInstancesDir, removeStaleInstanceFolders } from '#service/browser/instance-folders.ts';
import { BrowserPool } from '#service/browser/pool.ts';
import { removeServiceCgroups } from '#service/browser/sandbox/cgroups.ts';
import { probeIsolation } from '#service/browser/sandbox/probe.ts';
import { killUids } from '#service/browser/sandbox/uids.ts';
import { openServiceDatabase } from '#service/database.ts';
import { advertisedUrls, UID_BLOCK, type ServiceConfig } from '#service/config.ts';
import { ClusterRegistry } from '#service/cluster/registry.ts';
import { NotFound, ServiceUnavailable } from '#shared/errors.ts';
import { NodeAuth } from '#shared/node-auth.ts';
import { openRedis, redisReady, type RedisClient } from '#shared/redis.ts';
import { createLogger } from '#shared/log.ts';
import { ServiceMetrics } from '#service/metrics.ts';
import { openRateLimiter } from '#service/ratelimit/open.ts';
import { PageActions } from '#service/actions/actions.ts';
import { openProfiles } from '#service/profiles/open.ts';
import { profileId, type Profiles } from '#service/profiles/profiles.ts';
import { WarmProfiles } from '#service/browser/warm-profiles.ts';
import type { SearchBackend } from '#service/search/backend.ts';
import { openServiceSearch } from '#service/search/open.ts';
import type { ServiceContext } from './context.ts';
import { rejectUpgrade } from '../http/respond.ts';
import { guardConnections } from '../http/connection-guard.ts';
import { Router } from '../http/router.ts';
import { listBrowsers, stopBrowser } from './routes/browsers.ts';
import { getRecording, getRecordingScreen, searchRecordedEvents } from './routes/recordings.ts';
import { listProfiles, removeProfile } from './routes/profiles.ts';
import { getDownload, getDownloads, getUploads, putUpload, removeUpload } from './routes/browser-files.ts';
import { healthz, metrics, upgradeRequired } from './routes/health.ts';
import { operatorRoutes } from './routes/operator.ts';
import { OPERATOR_KEYS_PATH } from '#shared/protocol/operator.ts';
import { jsonVersion } from './routes/json-version.ts';
import { judgeEgress } from './routes/egress.ts';
import { McpEndpoint } from './routes/mcp.ts';
import { search as searchRoute } from './routes/search.ts';
import { pageAction } from './routes/actions.ts';
import { ClusterGateway } from './cluster.ts';
import { DevtoolsSockets } from './sockets/devtools.ts';
import { StartSockets } from './sockets/start.ts';

/** Ended browsers a key's list keeps at most (GET /v0/browsers). */
const HISTORY_PER_KEY = 100;

export type RunningService = {
  ctx: ServiceContext;
  server: Server;
  /** The address it listens on, e.g. http://127.0.0.1:3100. */
  url: string;
  /** Take no new browsers (and tell the cluster), keep the live ones until they end or SHUTDOWN_DRAIN_SECONDS pass. */
  drain(): Promise<void>;
  close(): Promise<void>;
};

/** Say at start-up what the search index holds, and how to fill an empty one. */
async function logIndexState(search: SearchBackend, file: string, log: ReturnType<typeof createLogger>): Promise<void> {
  try {
    const { pages } = await search.stats();
    if (pages === 0)
      log.warn(
        { index: file },
        'search index is empty: every search answers no results; add pages with `npm run index -- SOURCE...` (a WARC file, a folder of HTML with --base-url, or an http(s) address to crawl)',
      );
    else log.info({ index: file, pages }, 'search index ready');
  } catch (err) {
    log.error({ index: file, err: (err as Error).message }, 'search index cannot be opened: searches will answer 502 until it can');
    return;
  }
  // Its query threads read what a first search reads (every page's length, host and languages)
  // meanwhile: searches wait for it until then.
  const t0 = performance.now();
  void search.warm().then(
    () => log.info({ index: file, ms: Math.round(performance.now() - t0) }, 'search index warm: the first searches answer at full speed'),
    () => {},
  );
}

/** Wire the service together and start listening. */
export async function startService(config: ServiceConfig): Promise<RunningService> {
  const log = createLogger('service', config.logLevel);
  const metricsRegistry = new ServiceMetrics();
  // SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL shared by every node (decision 0093).
  const database = await openServiceDatabase(config, {
    ratePerMinute: config.search.defaultRatePerMinute,
    maxInstances: config.browser.maxInstancesPerKey,
  });
  const { keys } = database;
  const nodeId = config.cluster?.nodeId ?? SINGLE_NODE;

  const executable = await resolveChromium(config.chromePath);
  log.info({ chromium: executable }, 'using Chromium');
  const egress = new EgressProxy(new EgressPolicy(config.browser.egressAllow), log.child({ part: 'egress' }), {
    onRefused: (reason) => metricsRegistry.egressRefused.inc({ reason }),
  });
  await egress.listen();

  const instancesDir = await prepareInstancesDir(config.browser.instancesDir);
  // The whole block of the uid range (config: defaultUidBase); an instance's uid is reused only once its processes are gone.
  const uidCount = UID_BLOCK - 1;
  const { report: isolationReport, isolation } = await probeIsolation({
    setting: config.browser.isolation,
    uidBase: config.browser.uidBase,
    uidCount,
    bwrapPath: config.browser.bwrapPath,
    tag: String(config.browser.uidBase),
    limits: { memoryBytes: config.browser.memoryLimitBytes, pids: config.browser.pidsLimit },
    instancesDir,
    chromiumDir: executable.installDir,
  });
  if (isolationReport.mode === 'sandbox') log.info({ isolation: isolationReport }, 'browser isolation: every instance in its own sandbox');
  else if (isolationReport.mode === 'single-tenant')
    log.warn(
      { isolation: isolationReport },
      'browser isolation is OFF (BROWSER_ISOLATION=single-tenant): every API key holder can reach this host',
    );
  else
    log.error(
      { isolation: isolationReport },
      'this host cannot isolate browsers: /start is refused until it can (or BROWSER_ISOLATION=single-tenant is set for a trusted, single tenant)',
    );
  metricsRegistry.reportIsolation(isolationReport);

  // A service that died without shutting down (SIGKILL, power loss) leaves its browsers and
  // folders behind: end them before starting new ones.
  const staleProcesses =
    isolation?.mode === 'sandbox' && isolation.uids ? await killUids(config.browser.uidBase, config.browser.uidBase + uidCount + 1) : 0;
  const staleFolders = await removeStaleInstanceFolders(instancesDir);
  if (staleProcesses || staleFolders)
    log.warn({ processes: staleProcesses, folders: staleFolders }, 'ended browsers and removed folders left by an earlier run');
  // The next launch is always prepared ahead, so that a cold start is Chromium's own start (decision 0050).
  const launcher = isolation
    ? new Launcher<Awaited<ReturnType<PreparedLaunch['start']>>, StartHooks>(
        () => PreparedLaunch.make({ executable, instancesDir, isolation, egress, timeoutMs: config.browser.launchTimeoutMs }),
        log.child({ part: 'launcher' }),
      )
    : null;
  const launchHealth = new LaunchHealth();
  const launch = async (hooks?: StartHooks) => {
    if (!launcher)
      throw new ServiceUnavailable(
        `this host cannot isolate browsers: ${isolationReport.problems.join('; ')}. The operator can set BROWSER_ISOLATION=single-tenant only if every API key holder is trusted`,
      );
    const end = metricsRegistry.launchSeconds.startTimer();
    try {
      const browser = await launcher.launch(hooks);
      launchHealth.succeeded();
      return browser;
    } catch (err) {
      launchHealth.failed(err);
      throw err;
    } finally {
      end();
    }
  };
  const pool = new BrowserPool(launch, isolation ? config.browser.poolSize : 0, log.child({ part: 'pool' }), (n) =>
    metricsRegistry.poolSize.set(n),
  );
  const history = database.history({
    retentionMs: config.browser.historyMs,
    recordingRetentionMs: config.recording.retentionMs,
    maxEndedPerKey: HISTORY_PER_KEY,
  });
  const recordings = new Recordings({
    ...config.recording,
    history,
    log: log.child({ part: 'recording' }),
    explainUnreachable: (host) => egress.explain(host),
  });
  // Several nodes (REDIS_URL): the registry is made once this node listens (it says where it is
  // reached); browsers start only after that, and their keys' limits are counted there.
  let registry: ClusterRegistry | null = null;
  let redis: RedisClient | null = null;
  if (config.cluster) {
    redis = openRedis(config.cluster.redisUrl, `periscope-service:${config.cluster.nodeId}`);
    redis.on('error', (err: Error) => log.debug({ err }, 'redis connection error'));
    await redisReady(redis);
  }
  // Browsers started ahead from the profiles started from and saved on this node (decision 0106).
  const warmProfiles = new WarmProfiles(launch, isolation ? config.profiles.warm : 0, log.child({ part: 'warm-profiles' }), (n) =>
    metricsRegistry.profileWarm.set(n),
  );
  const profiles: Profiles = await openProfiles(config, {
    redis,
    nodeId,
    log: log.child({ part: 'profiles' }),
    onSaved: (outcome) => metricsRegistry.profileSaves.inc({ outcome }),
    onChanged: (keyId, name, change) => {
      warmProfiles.drop(profileId(keyId, name));
      if (change === 'saved')
        void profiles.use(keyId, name, false).then(
          (use) => warmProfiles.prepare(use),
          (err: Error) => log.warn({ err, profile: name }, 'could not start a browser ahead from a saved profile'),
        );
    },
  });
  metricsRegistry.beforeScrape(() => {
    const { running, waiting } = profiles.work;
    metricsRegistry.profileWork.set({ state: 'running' }, running);
    metricsRegistry.profileWork.set({ state: 'waiting' }, waiting);
  });
  const clustered = () => {
    if (!registry) throw new ServiceUnavailable('this node is still joining its cluster; try again shortly', 1);
    return registry;
  };
  const fleet = new BrowserFleet({
    admission: config.cluster
      ? {
          admit: (id, keyId, max) => sharedState(() => clustered().admit(id, keyId, max)),
          release: (id) => sharedState(() => clustered().release(id)),
        }
      : undefined,
    pool,
    warmProfiles,
    launchProblem: () => launchHealth.problem,
    capacity: config.browser.capacity,
    lifetimeMs: config.browser.maxLifetimeMs,
    log: log.child({ part: 'fleet' }),
    onProvisioned: (s, warm) => metricsRegistry.provisionSeconds.observe({ pool: warm ? 'warm' : 'cold' }, s),
    onCountChange: (n) => metricsRegistry.instancesLive.set(n),
    onQueue: (n) => metricsRegistry.startQueue.set(n),
    onQueued: (s) => metricsRegistry.startQueueSeconds.observe(s),
    prepare: async (instance, key) => {
      if (key.record)
        await recordings.begin(instance).catch((err: Error) => log.error({ err, browserId: instance.id }, 'could not begin a recording'));
      // Written before the client gets the id, so its browser is listed (on every node) from the start.
      await history
        .started({
          id: instance.id,
          keyId: key.id,
          nodeId,
          at: instance.createdAt.getTime(),
          recorded: recordings.isRecording(instance.id),
        })
        .catch((err: Error) => log.error({ err, browserId: instance.id }, 'could not record a browser in the history'));
    },
  });
  fleet.on('ended', (_instance, reason) => metricsRegistry.instancesEnded.inc({ reason }));
  await history.endLeftovers(nodeId, Date.now());
  const prune = async () => {
    await recordings.prune(Date.now()).catch((err: Error) => log.error({ err }, 'could not remove expired recordings'));
    await history.prune(Date.now()).catch((err: Error) => log.error({ err }, 'could not prune the browser history'));
  };
  await prune();
  const pruning = setInterval(() => void prune(), config.recording.pruneMs);
  pruning.unref();
  fleet.on('ended', (i, reason) => {
    void history
      .ended(i.id, reason, Date.now(), i.browser.tabs.state)
      .catch((err: Error) => log.error({ err, browserId: i.id }, 'could not record the end of a browser'));
    void recordings.finish(i.id).catch((err: Error) => log.error({ err, browserId: i.id }, 'could not finish a recording'));
  });
  const disk = new DiskGuard({
    fleet,
    limitBytes: config.browser.diskLimitBytes,
    intervalMs: config.browser.diskCheckMs,
    log: log.child({ part: 'disk' }),
  });
  disk.start();

  const advertised = { http: '', ws: '' };
  const searchIndex = await openServiceSearch(config, log.child({ part: 'search' }));
  const search = searchIndex.backend;
  const searchLimiter = openRateLimiter(config, log.child({ part: 'ratelimit' }), 'search');
  const actionLimiter = openRateLimiter(config, log.child({ part: 'ratelimit' }), 'actions');
  const actions = new PageActions({
    fleet,
    maxPdfBytes: config.actions.maxPdfBytes,
    explainUnreachable: (host) => egress.explain(host),
    log: log.child({ part: 'actions' }),
  });
  await logIndexState(search, searchIndex.where, log);
  const ctx: ServiceContext = {
    config,
    advertised,
    log,
    metrics: metricsRegistry,
    keys,
    pool,
    launcher,
    launchHealth,
    fleet,
    tickets: new ConnectTickets(config.cluster?.secret),
    history,
    recordings,
    profiles,
    search,
    searchLimiter,
    actions,
    actionLimiter,
    isolation: isolationReport,
    cluster: null,
  };
  const mcp = new McpEndpoint(ctx);
  const operator = operatorRoutes(ctx);
  const router = new Router(log, (route, status) => metricsRegistry.httpRequests.inc({ route, status: String(status) }))
    .on('GET', '/healthz', healthz(ctx))
    .on('GET', '/metrics', metrics(ctx))
    .on('GET', ['/json/version', '/json/version/'], jsonVersion(ctx))
    .on('GET', '/start', upgradeRequired)
    .on('POST', '/v0/search', searchRoute(ctx))
    .on('POST', '/v0/fetch', pageAction(ctx, 'fetch'))
    .on('POST', '/v0/screenshot', pageAction(ctx, 'screenshot'))
    .on('POST', '/v0/pdf', pageAction(ctx, 'pdf'))
    .on('POST', '/mcp', mcp.handle)
    .on('GET', '/mcp', mcp.handle)
    .on('DELETE', '/mcp', mcp.handle)
    .on('GET', '/v0/browsers', listBrowsers(ctx))
    .on('DELETE', '/v0/browsers/:id', stopBrowser(ctx))
    .on('GET', '/v0/browsers/:id/recording', getRecording(ctx))
    .on('GET', '/v0/browsers/:id/recording/screen', getRecordingScreen(ctx))
    .on('GET', '/v0/recordings/events', searchRecordedEvents(ctx))
    .on('GET', '/v0/profiles', listProfiles(ctx))
    .on('DELETE', '/v0/profiles/:name', removeProfile(ctx))
    .on('GET', '/v0/browser/uploads', getUploads(ctx))
    .on('PUT', '/v0/browser/uploads/:name', putUpload(ctx))
    .on('DELETE', '/v0/browser/uploads/:name', removeUpload(ctx))
    .on('GET', '/v0/browser/downloads', getDownloads(ctx))
    .on('GET', '/v0/browser/downloads/:name', getDownload(ctx))
    .on('GET', '/v0/browser/egress', judgeEgress(ctx, egress))
    .on('GET', OPERATOR_KEYS_PATH, operator.list)
    .on('POST', OPERATOR_KEYS_PATH, operator.create)
    .on('GET', `${OPERATOR_KEYS_PATH}/:id`, operator.get)
    .on('PATCH', `${OPERATOR_KEYS_PATH}/:id`, operator.change)
    .on('DELETE', `${OPERATOR_KEYS_PATH}/:id`, operator.revoke);
  const gateway = config.cluster
    ? new ClusterGateway({
        registry: { get: clustered },
        auth: new NodeAuth({
          scope: 'service',
          nodeId: config.cluster.nodeId,
          secret: config.cluster.secret,
          claimNonce: (nonce, ttlMs) => clustered().claimNonce(nonce, ttlMs),
        }),
        nodeId: config.cluster.nodeId,
        localLoad: () => fleet.load,
        capacity: config.browser.capacity,
      })
    : null;
  ctx.cluster = gateway;
  const starts = new StartSockets(ctx);
  const devtools = new DevtoolsSockets(ctx);

  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    if (!gateway) return void router.handle(req, res);
    void gateway.route(req, res, new URL(req.url ?? '/', 'http://localhost')).then((handled) => {
      if (!handled) return router.handle(req, res);
    });
  });
  guardConnections(server, config.http, (address) =>
    log.warn({ address, limit: config.http.perAddress }, 'connection refused: too many from one address'),
  );
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    const local = () => {
      if (url.pathname === '/start') void starts.handleUpgrade(req, socket, head);
      else if (url.pathname.startsWith('/devtools/')) void devtools.handleUpgrade(req, socket, head, url);
      else rejectUpgrade(socket, new NotFound(`no WebSocket endpoint at ${url.pathname}`));
    };
    if (!gateway) return local();
    void gateway.routeUpgrade(req, socket, head, url).then((handled) => handled || local());
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  launcher?.prepareAhead();
  await pool.start();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  Object.assign(advertised, advertisedUrls(config, address));
  if (config.cluster && redis) {
    const joining = new ClusterRegistry(redis, {
      nodeId,
      nodeUrl: config.cluster.nodeUrl ?? nodeAddress(address),
      capacity: config.browser.capacity,
      load: () => fleet.load,
      log: log.child({ part: 'cluster' }),
      // Another node was lost: its browsers went with it. Its clients through other nodes hear
      // 4502 from those nodes; the history says so for every client.
      onNodeLost: async (lostNode, ids) => {
        const ended = await history.endNode(lostNode, 'nodeLost', Date.now());
        log.warn({ node: lostNode, browsers: ids.length, history: ended.length }, 'ended the browsers of a lost node');
      },
      // Joined the cluster again. Reaped while it lived: the browsers the cluster forgot were lost to
      // it (their clients through other nodes heard 4502, their history says so), so they end here
      // too, rather than run on uncounted against their keys' limits. Forgotten by a Redis that
      // lost its data: nobody gave them up, so they are recorded again.
      onRejoined: async (why) => {
        const live = fleet.live();
        if (why === 'forgotten') {
          await joining.restore(live.map((b) => ({ id: b.id, keyId: b.keyId, startedAt: b.createdAt.getTime() })));
          log.warn({ browsers: live.length }, 'joined the cluster again after Redis lost its data; recorded its browsers again');
          return;
        }
        const forgotten = await joining.forgotten(live.map((b) => b.id));
        await Promise.all(forgotten.map((id) => fleet.end(id, 'nodeLost')));
        log.warn({ browsers: forgotten.length }, 'joined the cluster again after a lapse; ended the browsers it had forgotten');
      },
    });
    const left = await joining.start();
    if (left.length) log.warn({ browsers: left.length }, 'forgot the browsers an earlier run of this node left in the cluster');
    registry = joining;
    log.info({ node: nodeId, nodeUrl: config.cluster.nodeUrl ?? nodeAddress(address) }, 'joined the cluster');
  }
  log.info({ url, publicUrl: advertised.http, publicWsUrl: advertised.ws, dataDir: config.dataDir }, 'service listening');

  let draining: Promise<void> | null = null;
  const drain = () => {
    draining ??= (async () => {
      log.info(
        { browsers: fleet.size, drainMs: config.shutdownDrainMs },
        'draining: no new browsers; the live ones are kept until they end',
      );
      await registry?.drain().catch((err: Error) => log.warn({ err }, 'could not tell the cluster that this node is draining'));
      await fleet.drain(config.shutdownDrainMs);
      log.info({ browsers: fleet.size }, fleet.size ? 'drain time is up' : 'drained: no browser is left');
    })();
    return draining;
  };

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      log.info('shutting down');
      server.close();
      await mcp.close();
      disk.stop();
      clearInterval(pruning);
      await fleet.shutdown();
      await registry?.close();
      redis?.disconnect();
      await starts.drain(1000);
      await pool.close();
      await warmProfiles.close();
      await launcher?.close();
      await egress.close();
      if (isolation?.mode === 'sandbox' && isolation.cgroups) await removeServiceCgroups(isolation.cgroups);
      await rmdir(instancesDir).catch(() => {});
      server.closeAllConnections();
      await database.close();
      searchIndex.close();
      await searchLimiter.close();
      await actionLimiter.close();
      log.info('shut down');
    })();
    return closing;
  };
  return { ctx, server, url, drain, close };
}

/** Where other nodes reach this one when NODE_URL does not say: the address it listens on. */
function nodeAddress(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? hostname() : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** A call to the cluster's shared state; Redis out of reach is a 503 the client may retry, not a 500. */
async function sharedState<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ServiceUnavailable) throw err;
    throw new ServiceUnavailable(`the cluster's shared state cannot be reached (${(err as Error).message}); try again shortly`, 2);
  }
}
