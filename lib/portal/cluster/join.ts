import { randomBytes } from 'node:crypto';
import type { Logger } from '#shared/log.ts';
import { openRedis, redisReady } from '#shared/redis.ts';
import type { PortalClusterConfig } from '../config.ts';
import type { EndedTeamBrowser, TeamBrowsers } from '../live/team-browsers.ts';
import { ChangeBus } from './changes.ts';
import { ClusterDirectory } from './directory.ts';
import { NodeAuth } from '#shared/node-auth.ts';
import { NodeClient } from './node-client.ts';
import { NodeRegistry } from './registry.ts';

/** How often a node says it is alive, and how long after its last word the others take it as dead. */
export const NODE_BEAT_MS = 1000;
export const NODE_TTL_MS = 4000;

/** This process as one portal node among several (decision 0095). */
export type PortalCluster = {
  nodeId: string;
  /** Checks what other nodes ask of this one, and signs what it asks of them. */
  auth: NodeAuth;
  client: NodeClient;
  directory: ClusterDirectory;
  /** Leave the cluster (after the local browsers have ended) and close the Redis connections. */
  close(): Promise<void>;
};

/**
 * Join the portal nodes on REDIS_URL: two Redis connections (commands, and the change channel's
 * subscription), the registry, node-to-node trust, and the directory every part of the portal asks.
 * Fails (and the portal does not start) when Redis does not answer.
 */
export async function joinCluster(
  config: PortalClusterConfig,
  local: TeamBrowsers,
  onLost: (ended: EndedTeamBrowser) => void,
  log: Logger,
  timing: { beatMs: number; ttlMs: number } = { beatMs: NODE_BEAT_MS, ttlMs: NODE_TTL_MS },
): Promise<PortalCluster> {
  const redis = openRedis(config.redisUrl, `portal:${config.nodeId}`);
  const sub = openRedis(config.redisUrl, `portal:${config.nodeId}:changes`);
  try {
    await Promise.all([redisReady(redis), redisReady(sub)]);
  } catch (err) {
    redis.disconnect();
    sub.disconnect();
    throw err;
  }
  const boot = randomBytes(9).toString('base64url');
  const registry = new NodeRegistry(redis, { nodeId: config.nodeId, nodeUrl: config.nodeUrl, boot, ttlMs: timing.ttlMs });
  const auth = new NodeAuth({
    scope: 'portal',
    nodeId: config.nodeId,
    secret: config.secret,
    claimNonce: (n, ttl) => registry.claimNonce(n, ttl),
  });
  const client = new NodeClient(auth);
  const bus = new ChangeBus({ pub: redis, sub, origin: boot, log });
  const directory = new ClusterDirectory({ local, registry, bus, client, log, beatMs: timing.beatMs, onLost });
  await directory.start();
  log.info({ nodeId: config.nodeId, nodeUrl: config.nodeUrl }, 'joined the portal nodes');
  return {
    nodeId: config.nodeId,
    auth,
    client,
    directory,
    async close() {
      await directory.close();
      redis.disconnect();
      sub.disconnect();
    },
  };
}
