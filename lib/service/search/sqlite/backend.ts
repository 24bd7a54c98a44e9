import { existsSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  BackendUnavailable,
  searchRequestKey,
  type IndexStats,
  type SearchBackend,
  type SearchAnswer,
  type SearchRequest,
} from '../backend.ts';
import { immutableUri } from './generations.ts';
import { QueryPool } from './pool.ts';
import { IndexReader } from './query.ts';
import { openIndexDatabase, readAsCurrent } from './schema.ts';

export { FIELD_WEIGHTS } from './schema.ts';

/** A published generation, read-only and immutable, read as this code's schema (schema.ts readAsCurrent). */
function openGeneration(file: string): DatabaseSync {
  const db = new DatabaseSync(immutableUri(file), { readOnly: true });
  try {
    readAsCurrent(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * How many pages the index in `file` holds (a published generation when `immutable`), counted on a
 * connection of its own: what the indexer reports once done. A backend would open a reader, which
 * maps the file and reads what its queries keep (query.ts warm(): about 1 GB of the file at 10⁵
 * pages, counted in the indexer's resident memory though it has no use for it, decision 0145).
 */
export function indexedPages(file: string, { immutable }: { immutable: boolean }): number {
  const db = immutable ? openGeneration(file) : new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM pages').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** A copy of an answer, so that a caller changing it does not change the cached one. */
const copy = (a: SearchAnswer): SearchAnswer => ({
  ...a,
  results: a.results.map((r) => (r.section ? { ...r, section: [...r.section] } : { ...r })),
  ...(a.corrected ? { corrected: { ...a.corrected } } : {}),
  ...(a.next ? { next: { ...a.next } } : {}),
});

type Open = { db: DatabaseSync; version: StatementSync; count: StatementSync; run: (req: SearchRequest) => Promise<SearchAnswer> };

/**
 * The default engine: SQLite, one file (postings of its own, decision 0018). Opened lazily on the first request, so the service
 * starts (and answers 502 to searches) even when the index file is missing or broken.
 *
 * This thread keeps one connection (schema migrations, the index's data_version, stats) and the
 * answer cache; the searches themselves run on `workers` worker threads (pool.ts), each with its
 * own read-only connection, or in this thread when `workers` is 0.
 *
 * `immutable`: the file is a published index generation (generations.ts), which nothing writes:
 * every connection opens it as immutable SQLite, and no migration runs: a generation built by an
 * older schema is read as it is where it can be, and otherwise refused with the reason.
 */
export class SqliteSearchBackend implements SearchBackend {
  readonly #file: string;
  readonly #workers: number;
  readonly #immutable: boolean;
  readonly #listCacheBytes: number | undefined;
  #open: Open | null = null;
  #pool: QueryPool | null = null;
  #reader: IndexReader | null = null;

  readonly #cache = new Map<string, SearchAnswer>();
  readonly #cacheSize: number;
  #cacheVersion = -1;

  /** `cacheSize`: how many answers to remember (least recently used go first); 0 turns it off.
   * `workers`: query threads (0: search in the calling thread). `listCacheBytes`: each reader's
   * cache of posting lists (postings.ts). */
  constructor(file: string, opts: { cacheSize?: number; workers?: number; immutable?: boolean; listCacheBytes?: number } = {}) {
    this.#file = file;
    this.#listCacheBytes = opts.listCacheBytes;
    this.#cacheSize = opts.cacheSize ?? 2000;
    this.#workers = opts.workers ?? 0;
    this.#immutable = opts.immutable ?? false;
  }

  #connect(): Open {
    if (this.#open) return this.#open;
    const db = this.#immutable ? openGeneration(this.#file) : openIndexDatabase(this.#file);
    const address = this.#immutable ? immutableUri(this.#file) : this.#file;
    let run: Open['run'];
    if (this.#workers > 0) {
      const pool = (this.#pool = new QueryPool(address, this.#workers, { listCacheBytes: this.#listCacheBytes }));
      run = (req) => pool.search(req);
    } else {
      const reader = (this.#reader = new IndexReader(address, { listCacheBytes: this.#listCacheBytes }));
      run = async (req) => reader.search(req);
    }
    this.#open = { db, version: db.prepare('PRAGMA data_version'), count: db.prepare('SELECT COUNT(*) AS n FROM pages'), run };
    // As a query worker does when it starts (worker.ts); a failure here is the caller's, whose
    // close() closes what was opened.
    this.#reader?.warm();
    return this.#open;
  }

  #unavailable(what: string, err: unknown): BackendUnavailable {
    const missing = !existsSync(this.#file) ? ' (no index file)' : '';
    return new BackendUnavailable(`search index could not ${what}${missing}: ${(err as Error).message}`, { cause: err });
  }

  async search(req: SearchRequest): Promise<SearchAnswer> {
    let open: Open;
    let key: string;
    try {
      open = this.#connect();
      // Answers are remembered until the index changes (another process committing pages bumps
      // SQLite's data_version), as web search engines cache their popular queries.
      const version = (open.version.get() as { data_version: number }).data_version;
      if (version !== this.#cacheVersion) {
        this.#cache.clear();
        this.#cacheVersion = version;
      }
      key = searchRequestKey(req);
      const hit = this.#cache.get(key);
      if (hit) {
        this.#cache.delete(key);
        this.#cache.set(key, hit);
        return copy(hit);
      }
    } catch (err) {
      this.close();
      throw this.#unavailable('answer', err);
    }
    let answer: SearchAnswer;
    try {
      answer = await open.run(req);
    } catch (err) {
      throw this.#unavailable('answer', err);
    }
    if (this.#cacheSize > 0) {
      if (this.#cache.size >= this.#cacheSize) this.#cache.delete(this.#cache.keys().next().value as string);
      this.#cache.set(key, answer);
    }
    return copy(answer);
  }

  async stats(): Promise<IndexStats> {
    try {
      const pages = (this.#connect().count.get() as { n: number }).n;
      return this.#pool?.warming ? { pages, warming: true } : { pages };
    } catch (err) {
      this.close();
      throw this.#unavailable('be read', err);
    }
  }

  async warm(): Promise<void> {
    try {
      this.#connect();
    } catch (err) {
      this.close();
      throw this.#unavailable('be opened', err);
    }
    await this.#pool?.warm();
  }

  close(): void {
    void this.#pool?.close();
    this.#pool = null;
    this.#reader?.close();
    this.#reader = null;
    this.#open?.db.close();
    this.#open = null;
  }
}
