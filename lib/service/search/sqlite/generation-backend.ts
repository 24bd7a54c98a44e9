import {
  BackendUnavailable,
  searchRequestKey,
  type IndexStats,
  type SearchAnswer,
  type SearchBackend,
  type SearchRequest,
} from '../backend.ts';
import { SqliteSearchBackend } from './backend.ts';
import { currentGeneration } from './generations.ts';

/** Recent distinct searches a node replays on a new generation before switching to it. */
const WARM_SEARCHES = 200;
/** Longest a switch waits for them: past it, the switch goes on and they finish on their own. */
const WARM_MS = 2_000;

/** One generation in use: its engine (connections, query workers, answer cache) and the searches on it. */
type Live = { name: string; backend: SqliteSearchBackend; searches: number; retired: boolean };

/**
 * A node's search over a folder of index generations (generations.ts, decision 0094). Each search
 * runs whole on the generation that was current when it began; `refresh()` reads CURRENT and,
 * when it names another generation, opens that one (its own connections, query workers and an
 * empty answer cache), waits for its query workers to read what a first search reads
 * (IndexReader.warm; not for the first generation it opens, so that the node starts at once),
 * replays the node's recent searches on it (up to WARM_SEARCHES, so that its
 * query workers, their postings and its answer cache are warm: a fresh worker's first pass is
 * several times slower, 0018), then switches to it between two searches. The old one is closed once its
 * last search has answered. Who calls `refresh()` (a timer, news through Redis) is the caller's
 * business; a search that fails also checks, and runs once more on a newer generation if there is one.
 *
 * Before anything is published the node answers like a fresh install: no pages, no results.
 */
export class GenerationalSearchBackend implements SearchBackend {
  readonly #dir: string;
  readonly #opts: { cacheSize?: number; workers?: number; listCacheBytes?: number };
  readonly #warmSearches: number;
  readonly #warmThreads: boolean;
  /** The latest distinct searches, oldest first. */
  readonly #recent = new Map<string, SearchRequest>();
  #live: Live | null = null;
  /** How many recent searches the last switch replayed on the new generation before it. */
  warmed = 0;
  #refreshing: Promise<boolean> | null = null;
  #again = false;
  #closed = false;

  /** `warmSearches`: recent searches replayed on a new generation before the switch (0: none).
   * `warmThreads`: whether a switch waits for the new generation's query threads to read what a
   * first search reads (IndexReader.warm; by default it does). */
  constructor(
    dir: string,
    opts: { cacheSize?: number; workers?: number; listCacheBytes?: number; warmSearches?: number; warmThreads?: boolean } = {},
  ) {
    this.#dir = dir;
    this.#opts = { cacheSize: opts.cacheSize, workers: opts.workers, listCacheBytes: opts.listCacheBytes };
    this.#warmSearches = opts.warmSearches ?? WARM_SEARCHES;
    this.#warmThreads = opts.warmThreads ?? true;
  }

  /** The generation searches start on now, or null before the first is published (or opened). */
  get generation(): string | null {
    return this.#live?.name ?? null;
  }

  /**
   * Switch to the generation CURRENT names if it is not the one in use; true when it switched.
   * Calls while one runs share it, and one more check follows it (CURRENT may have moved meanwhile).
   * Rejects when the named generation cannot be opened; searches then stay on the one in use.
   */
  refresh(): Promise<boolean> {
    if (this.#refreshing) {
      this.#again = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      let switched = false;
      try {
        do {
          this.#again = false;
          switched = (await this.#switch()) || switched;
        } while (this.#again);
      } finally {
        this.#refreshing = null;
      }
      return switched;
    })();
    return this.#refreshing;
  }

  async #switch(): Promise<boolean> {
    const current = currentGeneration(this.#dir);
    if (this.#closed || !current || current.name === this.#live?.name) return false;
    const backend = new SqliteSearchBackend(current.file, { ...this.#opts, immutable: true });
    try {
      // Opens the file, checks its schema and starts the query workers before any search goes
      // there. A switch also waits for them to read what a first search reads; the first
      // generation a node opens does not hold its start up (stats() then says it is warming).
      await (this.#live && this.#warmThreads ? backend.warm() : backend.stats());
    } catch (err) {
      backend.close();
      throw new BackendUnavailable(`search index generation ${current.name} cannot be opened: ${(err as Error).message}`, { cause: err });
    }
    this.warmed = await this.#warm(backend);
    if (this.#closed) {
      backend.close();
      return false;
    }
    const old = this.#live;
    this.#live = { name: current.name, backend, searches: 0, retired: false };
    if (old) this.#retire(old);
    return true;
  }

  /** Replay the recent searches on `backend`, waiting WARM_MS at most; resolves with how many answered. */
  async #warm(backend: SqliteSearchBackend): Promise<number> {
    let answered = 0;
    const all = Promise.all(
      [...this.#recent.values()].map((r) =>
        backend.search(r).then(
          () => answered++,
          () => {},
        ),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, WARM_MS)))]);
    clearTimeout(timer);
    return answered;
  }

  #remember(req: SearchRequest): void {
    if (this.#warmSearches === 0) return;
    const key = searchRequestKey(req);
    this.#recent.delete(key);
    this.#recent.set(key, req);
    if (this.#recent.size > this.#warmSearches) this.#recent.delete(this.#recent.keys().next().value as string);
  }

  #retire(live: Live): void {
    live.retired = true;
    if (live.searches === 0) live.backend.close();
  }

  /** Runs `work` on the generation in use when called (taken before the first await), `none` before any is published. */
  async #on<T>(work: (b: SqliteSearchBackend) => Promise<T>, none: T): Promise<T> {
    if (this.#closed) throw new BackendUnavailable('search is closed');
    let live = this.#live;
    if (!live) {
      try {
        await this.refresh();
      } catch (err) {
        throw err instanceof BackendUnavailable
          ? err
          : new BackendUnavailable(`search index generations cannot be read: ${(err as Error).message}`);
      }
      live = this.#live;
      if (!live) return none;
    }
    for (let attempt = 0; ; attempt++) {
      const on: Live = live;
      on.searches++;
      try {
        return await work(on.backend);
      } catch (err) {
        // A generation removed under a node that missed the switch (or a broken file): a newer one may answer.
        if (attempt > 0 || !(err instanceof BackendUnavailable)) throw err;
        await this.refresh().catch(() => false);
        if (!this.#live || this.#live === on) throw err;
        live = this.#live;
      } finally {
        on.searches--;
        if (on.retired && on.searches === 0) on.backend.close();
      }
    }
  }

  search(req: SearchRequest): Promise<SearchAnswer> {
    this.#remember(req);
    return this.#on((b) => b.search(req), { results: [] });
  }

  stats(): Promise<IndexStats> {
    return this.#on((b) => b.stats(), { pages: 0 });
  }

  warm(): Promise<void> {
    return this.#on((b) => b.warm(), undefined);
  }

  close(): void {
    this.#closed = true;
    if (this.#live) this.#retire(this.#live);
    this.#live = null;
  }
}
