import { existsSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { BackendUnavailable, type IndexStats, type SearchBackend, type SearchRequest, type SearchResult } from '../backend.ts';
import { score, type Candidate } from '../rank.ts';
import { makeSnippet } from '../snippet.ts';
import { parseQuery, type Concept } from '../tokenize.ts';
import { queryHeads } from '../definitions.ts';
import { matchAll, matchAny } from './match.ts';
import { openIndexDatabase } from './schema.ts';

/** Field weights of the first-stage BM25, in the order of FTS_COLUMNS. */
export const FIELD_WEIGHTS = { title: 8, headings: 3, url: 4, terms: 5, anchors: 2, body: 1 };
const CANDIDATES = 60;
const FEATURE_DEPTH = 25;
/** How much of a page's text the snippet is chosen from. */
const SNIPPET_SCAN = 40_000;

type Statements = { version: StatementSync; defs: StatementSync; candidates: StatementSync; among: StatementSync; pages: StatementSync; content: StatementSync; count: StatementSync };

type PageRow = { id: number; url: string; title: string; lang: string | null; lang_shares: string; markup_lang: string | null; url_lang: string | null; inlinks: number };

/**
 * The default engine: SQLite FTS5 in one file. Opened lazily on the first request, so the service
 * starts (and answers 502 to searches) even when the index file is missing or broken.
 */
export class SqliteSearchBackend implements SearchBackend {
  readonly #file: string;
  #db: DatabaseSync | null = null;
  #q: Statements | null = null;

  readonly #cache = new Map<string, SearchResult[]>();
  readonly #cacheSize: number;
  #cacheVersion = -1;

  /** `cacheSize`: how many answers to remember (least recently used go first); 0 turns it off. */
  constructor(file: string, opts: { cacheSize?: number } = {}) {
    this.#file = file;
    this.#cacheSize = opts.cacheSize ?? 2000;
  }

  #open(): Statements {
    if (this.#q) return this.#q;
    const db = openIndexDatabase(this.#file);
    const w = FIELD_WEIGHTS;
    const weights = [w.title, w.headings, w.url, w.terms, w.anchors, w.body].join(', ');
    const ids = 'rowid IN (SELECT value FROM json_each(?))';
    this.#q = {
      candidates: db.prepare(`SELECT rowid AS id, -bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, ${weights}) LIMIT ${CANDIDATES}`),
      version: db.prepare('PRAGMA data_version'),
      defs: db.prepare('SELECT page_id AS id, weight FROM defs WHERE head = ? LIMIT 50'),
      among: db.prepare(`SELECT rowid AS id FROM fts WHERE fts MATCH ? AND ${ids}`),
      pages: db.prepare(`SELECT id, url, title, lang, lang_shares, markup_lang, url_lang, inlinks FROM pages WHERE id IN (SELECT value FROM json_each(?))`),
      content: db.prepare(`SELECT substr(body, 1, ${SNIPPET_SCAN}) AS body, description FROM pages WHERE id = ?`),
      count: db.prepare('SELECT COUNT(*) AS n FROM pages'),
    };
    this.#db = db;
    return this.#q;
  }

  #run<T>(what: string, fn: (q: Statements) => T): T {
    try {
      return fn(this.#open());
    } catch (err) {
      if (!this.#q) this.close();
      const missing = !existsSync(this.#file) ? ' (no index file)' : '';
      throw new BackendUnavailable(`search index could not ${what}${missing}: ${(err as Error).message}`, { cause: err });
    }
  }

  async search(req: SearchRequest): Promise<SearchResult[]> {
    return this.#run('answer', (q) => {
      // Answers are remembered until the index changes (another process committing pages bumps
      // SQLite's data_version), as web search engines cache their popular queries.
      const version = (q.version.get() as { data_version: number }).data_version;
      if (version !== this.#cacheVersion) {
        this.#cache.clear();
        this.#cacheVersion = version;
      }
      const key = `${req.language}\n${req.limit}\n${req.query}`;
      const hit = this.#cache.get(key);
      if (hit) {
        this.#cache.delete(key);
        this.#cache.set(key, hit);
        return hit.map((r) => ({ ...r }));
      }
      const results = this.#search(q, req);
      if (this.#cache.size >= this.#cacheSize) this.#cache.delete(this.#cache.keys().next().value as string);
      if (this.#cacheSize > 0) this.#cache.set(key, results);
      return results.map((r) => ({ ...r }));
    });
  }

  #search(q: Statements, req: SearchRequest): SearchResult[] {
    const parsed = parseQuery(req.query);
    const real = parsed.concepts.filter((c) => !c.stop);
    const concepts: Concept[] = real.length ? real : parsed.concepts;
    if (!concepts.length) return [];
    const rows = q.candidates.all(matchAny(concepts, parsed.joins)) as { id: number; s: number }[];
    // Pages that define what was typed join the candidates even when BM25 ranked them low.
    const defines = new Map<number, number>();
    for (const h of queryHeads(parsed.concepts)) {
      for (const r of q.defs.all(h.head) as { id: number; weight: number }[]) defines.set(r.id, Math.max(defines.get(r.id) ?? 0, r.weight * h.weight));
    }
    const known = new Set(rows.map((r) => r.id));
    for (const id of defines.keys()) if (!known.has(id)) rows.push({ id, s: 0 });
    if (!rows.length) return [];
    const idList = JSON.stringify(rows.map((r) => r.id));
    // The costlier coverage checks look at the head of the list only (and at pages that define the query).
    const headIds = JSON.stringify(rows.filter((r, i) => i < FEATURE_DEPTH || defines.has(r.id)).map((r) => r.id));
    const coversAll = concepts.length > 1 ? new Set((q.among.all(matchAll(concepts), headIds) as { id: number }[]).map((r) => r.id)) : new Set(rows.map((r) => r.id));
    const inColumn = (column: string) =>
      new Set((q.among.all(`{${column}} : (${matchAll(concepts)})`, headIds) as { id: number }[]).map((r) => r.id));
    const headingsAll = inColumn('headings');
    const pages = new Map((q.pages.all(idList) as PageRow[]).map((p) => [p.id, p]));
    const max = rows[0]?.s ?? 0;
    const scored: { c: Candidate; s: number }[] = [];
    for (const r of rows) {
      const p = pages.get(r.id);
      if (!p) continue;
      const c: Candidate = {
        id: r.id,
        bm25: r.s,
        coversAll: coversAll.has(r.id),
        headingsAll: headingsAll.has(r.id),
        title: p.title,
        url: p.url,
        lang: p.lang,
        langShares: JSON.parse(p.lang_shares) as Record<string, number>,
        markupLang: p.markup_lang,
        urlLang: p.url_lang,
        inlinks: p.inlinks,
        defines: defines.get(r.id) ?? 0,
      };
      scored.push({ c, s: score(c, concepts, req.language, max) });
    }
    scored.sort((a, b) => b.s - a.s || a.c.id - b.c.id);
    const out: SearchResult[] = [];
    const seen = new Set<string>();
    for (const { c } of scored) {
      if (out.length >= req.limit) break;
      if (seen.has(c.url)) continue;
      seen.add(c.url);
      const content = q.content.get(c.id) as { body: string; description: string };
      out.push({ url: c.url, title: c.title, snippet: makeSnippet(content.body, content.description, concepts, c.title) });
    }
    return out;
  }

  async stats(): Promise<IndexStats> {
    return this.#run('be read', (q) => ({ pages: (q.count.get() as { n: number }).n }));
  }

  close(): void {
    this.#q = null;
    this.#db?.close();
    this.#db = null;
  }
}
