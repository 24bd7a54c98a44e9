import { z } from 'zod';
import { REDIS_PREFIX, type RedisClient } from '#shared/redis.ts';
import type { Logger } from '#shared/log.ts';

/** The channel every portal node publishes its teams' browser changes on (decision 0095). */
export const CHANGES_CHANNEL = `${REDIS_PREFIX}portal:changes`;

const changeSchema = z.object({ origin: z.string().min(1).max(100), teamId: z.string().min(1).max(100) });

/**
 * "The team's browsers changed", from every portal node to every other, over Redis pub/sub. A
 * message says only which team: each node reads the rows again (lib/portal/cluster/registry.ts),
 * so a lost message costs at most one dashboard refresh period (0031), never a wrong row.
 * Subscribing takes a Redis client of its own.
 */
export class ChangeBus {
  readonly #pub: RedisClient;
  readonly #sub: RedisClient;
  readonly #origin: string;
  readonly #log: Logger;

  constructor(opts: { pub: RedisClient; sub: RedisClient; origin: string; log: Logger }) {
    this.#pub = opts.pub;
    this.#sub = opts.sub;
    this.#origin = opts.origin;
    this.#log = opts.log;
  }

  /** Hear every other node's changes; after a lost connection, `onResume` (messages meanwhile are lost). */
  async subscribe(listener: (teamId: string) => void, onResume: () => void): Promise<void> {
    this.#sub.on('message', (channel: string, text: string) => {
      if (channel !== CHANGES_CHANNEL) return;
      let parsed;
      try {
        parsed = changeSchema.safeParse(JSON.parse(text));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) return void this.#log.warn({ channel }, 'ignored a malformed change message');
      if (parsed.data.origin !== this.#origin) listener(parsed.data.teamId);
    });
    let first = this.#sub.status !== 'ready';
    this.#sub.on('ready', () => {
      if (!first) onResume();
      first = false;
    });
    await this.#sub.subscribe(CHANGES_CHANNEL);
  }

  publish(teamId: string): void {
    this.#pub
      .publish(CHANGES_CHANNEL, JSON.stringify({ origin: this.#origin, teamId }))
      .catch((err: Error) => this.#log.warn({ err, teamId }, 'could not publish a change'));
  }
}
