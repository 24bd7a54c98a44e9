import { openRedis, REDIS_PREFIX, redisReady, type RedisClient } from '#shared/redis.ts';

/**
 * News of a published index generation between nodes, through Redis pub/sub (decision 0094).
 * A message only says "look now": every node then reads CURRENT in the shared index folder, which
 * stays the one truth, so a lost or late message costs only time (each node also looks every
 * SEARCH_INDEX_CHECK_SECONDS, and when its subscription comes back after Redis was away).
 */
export const GENERATION_CHANNEL = `${REDIS_PREFIX}search:generation`;

/** Tell every subscribed node that `name` is now current; resolves with how many nodes heard it. */
export async function announceGeneration(redisUrl: string, name: string): Promise<number> {
  const client = openRedis(redisUrl, 'periscope-indexer');
  try {
    await redisReady(client);
    return await client.publish(GENERATION_CHANNEL, name);
  } finally {
    client.disconnect();
  }
}

export type GenerationNews = { close(): void };

/**
 * Subscribe on a client of this node's own; `look` is called with the generation named by each
 * message, and with null whenever the subscription is (re)established, since messages sent while
 * it was away are lost. `onError` hears of each outage once.
 */
export function listenForGenerations(
  redisUrl: string,
  nodeId: string,
  look: (name: string | null) => void,
  onError: (err: Error) => void,
): GenerationNews {
  const client: RedisClient = openRedis(redisUrl, `periscope-search-${nodeId}`);
  // Reported once per outage: the client keeps trying again and fails the same way each time.
  let reported = false;
  client.on('error', (err: Error) => {
    if (!reported) onError(err);
    reported = true;
  });
  client.on('ready', () => {
    reported = false;
    // ioredis subscribes again by itself after a reconnection; this asks for it the first time.
    client.subscribe(GENERATION_CHANNEL).then(() => look(null), onError);
  });
  client.on('message', (channel: string, message: string) => {
    if (channel === GENERATION_CHANNEL) look(message);
  });
  return { close: () => client.disconnect() };
}
