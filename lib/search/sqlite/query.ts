import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SearchRequest, SearchResult } from '../backend.ts';
import { queryHeads } from '../definitions.ts';
import { score, type Candidate } from '../rank.ts';
import { makeSnippet } from '../snippet.ts';
import { parseQuery, type Concept } from '../tokenize.ts';
import { matchAll, matchAny } from './match.ts';

/** Field weights of the first-stage BM25, in the order of FTS_COLUMNS. */
export const FIELD_WEIGHTS = { title: 8, headings: 3, url: 4, terms: 5, anchors: 2, body: 1 };
const CANDIDATES = 60;
/** The costlier coverage check looks at the head of the list only (and at pages that define the query). */
const FEATURE_DEPTH = 25;
/** How much of a page's text the snippet is chosen from: the opening 12,000 characters (reading and
 * scanning 40,000 of ten pages was a third of the CPU time of a query; decision 0015). */
const SNIPPET_SCAN = 12_000;
const MAX_DEFINERS = 200;

type SignalRow = { id: number; url: string; title: string; headings: string; lang_shares: string; markup_lang: string | null; url_lang: string | null; inlinks: number };

const ids = (list: readonly (number | string)[]) => JSON.stringify(list);

/**
 * One read-only connection to the index and the whole query path on it: candidates from FTS5,
 * pages that define the query, the re-ranking (rank.ts) and the snippets. Synchronous; the backend
 * runs one per worker thread (or one in-process). At most five statements per query, each prepared
 * once: candidates, definers, coverage (queries of two or more concepts), signals, snippet text.
 */
export class IndexReader {
  readonly #db: DatabaseSync;
  readonly #candidates: StatementSync;
  readonly #definers: StatementSync;
  readonly #among: StatementSync;
  readonly #signals: StatementSync;
  readonly #content: StatementSync;

  constructor(file: string) {
    this.#db = new DatabaseSync(file, { readOnly: true });
    this.#db.exec('PRAGMA busy_timeout = 5000');
    const w = FIELD_WEIGHTS;
    const weights = [w.title, w.headings, w.url, w.terms, w.anchors, w.body].join(', ');
    const among = 'IN (SELECT value FROM json_each(?))';
    this.#candidates = this.#db.prepare(`SELECT rowid AS id, -bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, ${weights}) LIMIT ${CANDIDATES}`);
    // The best definers over all heads of the query: a page's definition weight times the head's.
    this.#definers = this.#db.prepare(`SELECT d.page_id AS id, max(d.weight * (h.value ->> 'w')) AS weight FROM json_each(?) h
      JOIN defs d ON d.head = h.value ->> 'h' GROUP BY d.page_id ORDER BY weight DESC LIMIT ${MAX_DEFINERS}`);
    this.#among = this.#db.prepare(`SELECT rowid AS id FROM fts WHERE fts MATCH ? AND rowid ${among}`);
    this.#signals = this.#db.prepare(`SELECT id, url, title, headings, lang_shares, markup_lang, url_lang, inlinks FROM signals WHERE id ${among}`);
    this.#content = this.#db.prepare(`SELECT id, substr(body, 1, ${SNIPPET_SCAN}) AS body, description FROM pages WHERE id ${among}`);
  }

  search(req: SearchRequest): SearchResult[] {
    const parsed = parseQuery(req.query);
    const real = parsed.concepts.filter((c) => !c.stop);
    const concepts: Concept[] = real.length ? real : parsed.concepts;
    if (!concepts.length) return [];
    const rows = this.#candidates.all(matchAny(concepts, parsed.joins)) as { id: number; s: number }[];
    // Pages that define what was typed join the candidates even when BM25 ranked them low.
    const heads = queryHeads(parsed.concepts);
    const defines = new Map<number, number>();
    if (heads.length) {
      const list = JSON.stringify(heads.map((h) => ({ h: h.head, w: h.weight })));
      for (const r of this.#definers.all(list) as { id: number; weight: number }[]) defines.set(r.id, r.weight);
    }
    const known = new Set(rows.map((r) => r.id));
    for (const id of defines.keys()) if (!known.has(id)) rows.push({ id, s: 0 });
    if (!rows.length) return [];
    const head = rows.filter((r, i) => i < FEATURE_DEPTH || defines.has(r.id)).map((r) => r.id);
    const coversAll = concepts.length > 1 ? new Set((this.#among.all(matchAll(concepts), ids(head)) as { id: number }[]).map((r) => r.id)) : null;
    const signals = new Map((this.#signals.all(ids(rows.map((r) => r.id))) as SignalRow[]).map((p) => [p.id, p]));
    const max = rows[0]?.s ?? 0;
    const scored: { c: Candidate; s: number }[] = [];
    for (const r of rows) {
      const p = signals.get(r.id);
      if (!p) continue;
      const c: Candidate = {
        id: r.id,
        bm25: r.s,
        coversAll: coversAll ? coversAll.has(r.id) : true,
        title: p.title,
        headings: p.headings,
        url: p.url,
        langShares: JSON.parse(p.lang_shares) as Record<string, number>,
        markupLang: p.markup_lang,
        urlLang: p.url_lang,
        inlinks: p.inlinks,
        defines: defines.get(r.id) ?? 0,
      };
      scored.push({ c, s: score(c, concepts, req.language, max) });
    }
    scored.sort((a, b) => b.s - a.s || a.c.id - b.c.id);
    const top: Candidate[] = [];
    const seen = new Set<string>();
    for (const { c } of scored) {
      if (top.length >= req.limit) break;
      if (seen.has(c.url)) continue;
      seen.add(c.url);
      top.push(c);
    }
    const content = new Map((this.#content.all(ids(top.map((c) => c.id))) as { id: number; body: string; description: string }[]).map((r) => [r.id, r]));
    return top.map((c) => {
      const t = content.get(c.id);
      return { url: c.url, title: c.title, snippet: makeSnippet(t?.body ?? '', t?.description ?? '', concepts, c.title) };
    });
  }

  count(): number {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM pages').get() as { n: number }).n;
  }

  close(): void {
    this.#db.close();
  }
}
