import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { freePort } from './ports.ts';
import { startRedis, type TestRedis } from './redis.ts';
import { ROOT, startService, type ServiceProcess } from './service.ts';

/**
 * The layout of deploy/ on one machine: PostgreSQL, Redis, three service nodes and two portal
 * nodes, with HAProxy in front of each kind, started from deploy/haproxy.cfg exactly as an operator
 * would (the addresses through its environment). Every part is a real server on a loopback port of
 * its own, and `stop()` removes all of it. The portal nodes are the real `npm run portal` (Next.js,
 * built by `next build` before the end-to-end tests).
 */
export const DEPLOYMENT_SECRET = 'deployment-cluster-secret-for-tests-0123456789';

export type PortalNode = { url: string; child: ChildProcess; dataDir: string; stop(signal?: NodeJS.Signals): Promise<void> };

export type Deployment = {
  postgres: TestPostgres;
  redis: TestRedis;
  /** Clients' addresses: HAProxy's two front ends. */
  serviceUrl: string;
  portalUrl: string;
  services: ServiceProcess[];
  portals: PortalNode[];
  haproxy: ChildProcess;
  /** Create a service key with the operator's command (`npm run keys`, on the shared database). */
  createKey(name: string, opts?: { maxInstances?: number; ratePerMinute?: number }): string;
  stop(): Promise<void>;
};

/** Why a deployment cannot run here (a program missing), or null. */
export function deploymentUnavailable(): string | null {
  for (const program of ['haproxy', 'redis-server']) {
    if (spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0) return `${program} is not installed (.ci/run installs it)`;
  }
  return null;
}

const secrets = {
  NEXTAUTH_SECRET: 'deployment-nextauth-secret-for-tests-0123456789',
  KEY_ENCRYPTION_SECRET: 'deployment-key-encryption-secret-for-tests-0123',
};

async function waitFor(url: string, timeoutMs: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before ${url} answered:\n${output()}`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function startPortalNode(env: Record<string, string>, port: number): Promise<PortalNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-portal-node-'));
  const child = spawn(process.execPath, [join(ROOT, 'server/portal/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-8000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  return waitFor(`${url}/api/health`, 120_000, child, () => output).then(() => ({
    url,
    child,
    dataDir,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  }));
}

export async function startDeployment(opts: { serviceEnv?: Record<string, string> } = {}): Promise<Deployment> {
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  const ports = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  const [lbService, lbPortal, s1, s2, s3, p1, p2] = ports as [number, number, number, number, number, number, number];
  const serviceUrl = `http://127.0.0.1:${lbService}`;
  const portalUrl = `http://127.0.0.1:${lbPortal}`;
  const shared = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, CLUSTER_SECRET: DEPLOYMENT_SECRET };
  const services: ServiceProcess[] = [];
  const portals: PortalNode[] = [];
  let haproxy: ChildProcess | null = null;
  const stop = async () => {
    haproxy?.kill('SIGKILL');
    await Promise.all(portals.map((p) => p.stop()));
    await Promise.all(services.map((s) => s.stop()));
    await redis.stop();
    postgres.stop();
  };
  try {
    for (const [i, port] of [s1, s2, s3].entries()) {
      services.push(
        await startService({
          ...shared,
          SERVICE_PORT: String(port),
          NODE_ID: `service-${i + 1}`,
          PUBLIC_BROWSER_URL: serviceUrl,
          // Every connection comes from the balancer, which keeps the per-client cap (deploy/haproxy.cfg).
          MAX_CONNECTIONS_PER_ADDRESS: '0',
          BROWSER_POOL_SIZE: '0',
          BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
          ...opts.serviceEnv,
        }),
      );
    }
    const portalEnv = (i: number, port: number) => ({
      ...shared,
      ...secrets,
      SERVICE_URL: serviceUrl,
      NEXTAUTH_URL: portalUrl,
      PORTAL_NODE_ID: `portal-${i + 1}`,
      PORTAL_NODE_URL: `http://127.0.0.1:${port}`,
      SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
    });
    portals.push(...(await Promise.all([p1, p2].map((port, i) => startPortalNode(portalEnv(i, port), port)))));
    let haproxyOutput = '';
    haproxy = spawn('haproxy', ['-db', '-f', join(ROOT, 'deploy/haproxy.cfg')], {
      env: {
        ...process.env,
        SERVICE_BIND: `127.0.0.1:${lbService}`,
        PORTAL_BIND: `127.0.0.1:${lbPortal}`,
        SERVICE_NODE_1: `127.0.0.1:${s1}`,
        SERVICE_NODE_2: `127.0.0.1:${s2}`,
        SERVICE_NODE_3: `127.0.0.1:${s3}`,
        PORTAL_NODE_1: `127.0.0.1:${p1}`,
        PORTAL_NODE_2: `127.0.0.1:${p2}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => (haproxyOutput = (haproxyOutput + d.toString()).slice(-8000));
    haproxy.stdout?.on('data', keep);
    haproxy.stderr?.on('data', keep);
    await waitFor(`${serviceUrl}/healthz`, 30_000, haproxy, () => haproxyOutput);
    await waitFor(`${portalUrl}/api/health`, 30_000, haproxy, () => haproxyOutput);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    postgres,
    redis,
    serviceUrl,
    portalUrl,
    services,
    portals,
    haproxy: haproxy as ChildProcess,
    createKey(name, o = {}) {
      const args = ['create', '--name', name];
      if (o.maxInstances) args.push('--max-instances', String(o.maxInstances));
      if (o.ratePerMinute) args.push('--rate-per-minute', String(o.ratePerMinute));
      const r = (services[0] as ServiceProcess).keysCli(args);
      if (r.status !== 0) throw new Error(`keys create failed: ${r.stderr}`);
      return r.stdout.trim().split('\n').pop() as string;
    },
    stop,
  };
}
