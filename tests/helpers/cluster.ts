import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisForTests, freePort, type TestRedis } from './redis.ts';
import { startService, type ServiceProcess } from './service.ts';

export const CLUSTER_SECRET = 'cluster-secret-for-tests-only-0123456789';

export type ServiceCluster = {
  redis: TestRedis;
  nodes: ServiceProcess[];
  /** Start node `i` again (after it was stopped or killed), under the same id and port. */
  restart(i: number): Promise<ServiceProcess>;
  stop(): Promise<void>;
};

/**
 * Several real service processes sharing one Redis (and one key store): node i is `node-i` on a
 * loopback port of its own, with its own uid block and instance folder. `env(i)` adds to a node's
 * environment. Null with the reason when Redis is not available here (see redisForTests).
 */
export async function startServiceCluster(
  count: number,
  env: (i: number, ports: number[]) => Record<string, string> = () => ({}),
): Promise<ServiceCluster | string> {
  const got = await redisForTests();
  if (got.skip !== false) return got.skip;
  const redis = got.redis;
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-cluster-'));
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const envOf = (i: number): Record<string, string> => ({
    DATA_DIR: dataDir,
    SERVICE_PORT: String(ports[i]),
    REDIS_URL: redis.url,
    CLUSTER_SECRET,
    NODE_ID: `node-${i + 1}`,
    BROWSER_UID_BASE: String(1_900_000_000 + i * 2048),
    // Outside DATA_DIR, which instance uids must not be able to walk (decision 0050).
    BROWSER_INSTANCES_DIR: join(tmpdir(), `periscope-browsers-${1_900_000_000 + i * 2048}`),
    ...env(i, ports),
  });
  const nodes: ServiceProcess[] = [];
  for (let i = 0; i < count; i++) nodes.push(await startService(envOf(i)));
  return {
    redis,
    nodes,
    async restart(i) {
      nodes[i] = await startService(envOf(i));
      return nodes[i];
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      await redis.stop();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}
