import type { ServiceConfig } from '../config.ts';
import type { Logger } from '#shared/log.ts';
import type { SearchBackend } from './backend.ts';
import { listenForGenerations, type GenerationNews } from './generation-news.ts';
import { GenerationalSearchBackend } from './sqlite/generation-backend.ts';
import { SqliteSearchBackend } from './sqlite/backend.ts';

export type ServiceSearch = {
  backend: SearchBackend;
  /** What the index is, for the log: the file, or the folder of generations. */
  where: string;
  close(): void;
};

/**
 * The service's search engine as configured (decision 0094): the one live index file of a single
 * node (SEARCH_INDEX_PATH), or the published generation of a folder several nodes share
 * (SEARCH_INDEX_DIR). With generations the node looks for a newer one now, every
 * SEARCH_INDEX_CHECK_SECONDS, and at once on news through Redis when REDIS_URL is set.
 */
export async function openServiceSearch(config: ServiceConfig, log: Logger): Promise<ServiceSearch> {
  const { search } = config;
  const engine = { cacheSize: search.cacheSize, workers: search.workers, listCacheBytes: search.listCacheBytes };
  if (!search.generations) {
    const backend = new SqliteSearchBackend(search.indexPath, engine);
    return { backend, where: search.indexPath, close: () => backend.close() };
  }
  const { dir, checkMs } = search.generations;
  const backend = new GenerationalSearchBackend(dir, engine);
  const look = (why: string) =>
    backend.refresh().then(
      (switched) =>
        switched &&
        log.info({ generation: backend.generation, index: dir, why, warmed: backend.warmed }, 'search index generation switched'),
      (err: Error) =>
        log.error({ index: dir, why, err: err.message }, 'search index generation cannot be opened: searches stay on the one in use'),
    );
  await look('start');
  const timer = setInterval(() => void look('periodic check'), checkMs);
  timer.unref();
  let news: GenerationNews | null = null;
  if (config.cluster)
    news = listenForGenerations(
      config.cluster.redisUrl,
      config.cluster.nodeId,
      (name) => {
        if (!name) log.info({ index: dir }, 'listening for new search index generations through Redis');
        void look(name ? `announced ${name}` : 'subscribed to news');
      },
      (err) => log.warn({ err: err.message }, 'search generation news: Redis is away; checking every SEARCH_INDEX_CHECK_SECONDS meanwhile'),
    );
  return {
    backend,
    where: dir,
    close() {
      clearInterval(timer);
      news?.close();
      backend.close();
    },
  };
}
