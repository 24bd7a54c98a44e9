import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registryKeys } from '#service/cluster/registry.ts';
import { openRedis, redisReady } from '#shared/redis.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { freePort } from './ports.ts';
import { redisForTests, type TestRedis } from './redis.ts';
import { startService, type ServiceProcess } from './service.ts';

export const CLUSTER_SECRET = 'cluster-secret-for-tests-only-0123456789';

/** The node the cluster's registry (in the Redis at `redisUrl`) records as running browser `id`, alive or not; null when none. */
export async function recordedRunner(redisUrl: string, id: string): Promise<string | null> {
  const client = openRedis(redisUrl, 'test');
  try {
    await redisReady(client);
    return await client.hget(registryKeys.browser(id), 'node');
  } finally {
    client.disconnect();
  }
}

export type ServiceCluster = {
  redis: TestRedis;
  postgres: TestPostgres;
  nodes: ServiceProcess[];
  /** Start node `i` again (after it was stopped or killed), under the same id and port. */
  restart(i: number): Promise<ServiceProcess>;
  stop(): Promise<void>;
};

/**
 * Several real service processes sharing one Redis and one PostgreSQL (keys and history), as on
 * several machines: node i is `node-i` on a loopback port and a DATA_DIR of its own. `env(i)` adds
 * to a node's environment. The reason to skip instead when Redis or PostgreSQL is not available
 * here (never in CI: see redisForTests).
 */
export async function startServiceCluster(
  count: number,
  env: (i: number, ports: number[]) => Record<string, string> = () => ({}),
): Promise<ServiceCluster | string> {
  const got = await redisForTests();
  if (got.skip !== false) return got.skip;
  const redis = got.redis;
  let postgres: TestPostgres;
  try {
    postgres = await startPostgres();
  } catch (err) {
    await redis.stop();
    if (/^(1|true|yes)$/i.test(process.env.CI ?? '')) throw err;
    return `PostgreSQL is not available: ${(err as Error).message}`;
  }
  const dataDirs = Array.from({ length: count }, () => mkdtempSync(join(tmpdir(), 'periscope-cluster-')));
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const envOf = (i: number): Record<string, string> => ({
    DATA_DIR: dataDirs[i] as string,
    SERVICE_PORT: String(ports[i]),
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    CLUSTER_SECRET,
    NODE_ID: `node-${i + 1}`,
    ...env(i, ports),
  });
  const nodes: ServiceProcess[] = [];
  for (let i = 0; i < count; i++) nodes.push(await startService(envOf(i)));
  return {
    redis,
    postgres,
    nodes,
    async restart(i) {
      nodes[i] = await startService(envOf(i));
      return nodes[i];
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      await redis.stop();
      postgres.stop();
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}
