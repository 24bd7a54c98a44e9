import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SearchRequest, SearchResult } from '../backend.ts';
import { queryHeads } from '../definitions.ts';
import { score, type Candidate } from '../rank.ts';
import { bestPassage, makeSnippet, passageBound, SNIPPET_SCAN, snippetFromPassages, snippetJoins, snippetNeedles, type Passage } from '../snippet.ts';
import { parseQuery, type Concept } from '../tokenize.ts';
import { matchAll, matchAny } from './match.ts';
import { PASSAGE_SLOTS } from './schema.ts';

/** Field weights of the first-stage BM25, in the order of FTS_COLUMNS. */
export const FIELD_WEIGHTS = { title: 8, headings: 3, url: 4, terms: 5, anchors: 2, body: 1 };
const CANDIDATES = 60;
/** The costlier coverage check looks at the head of the list only (and at pages that define the query). */
const FEATURE_DEPTH = 25;
const MAX_DEFINERS = 200;
/** Pages whose ranking signals a reader keeps parsed in memory (a few hundred bytes each). */
const SIGNALS_KEPT = 50_000;

type SignalRow = { id: number; url: string; title: string; headings: string; lang_shares: string; markup_lang: string | null; url_lang: string | null; inlinks: number };
type Signals = { url: string; title: string; headings: string; langShares: Record<string, number>; markupLang: string | null; urlLang: string | null; inlinks: number };

const ids = (list: readonly (number | string)[]) => JSON.stringify(list);

/**
 * One read-only connection to the index and the whole query path on it: candidates from FTS5,
 * pages that define the query, the re-ranking (rank.ts) and the snippets. Synchronous; the backend
 * runs one per worker thread (or one in-process). Statements are prepared once; a query runs the
 * candidates (with coverage folded in, decision 0017), the definers, data_version, the fallbacks
 * and passage hits of the results and the hit passages' text; signals are read once per page and
 * index version; the page text of a page indexed before migration 3 costs one more statement.
 */
export class IndexReader {
  readonly #db: DatabaseSync;
  readonly #candidates: StatementSync;
  readonly #definers: StatementSync;
  readonly #definersCovered: StatementSync;
  readonly #signals: StatementSync;
  readonly #content: StatementSync;
  readonly #covered: StatementSync;
  readonly #version: StatementSync;
  readonly #passages: StatementSync;
  readonly #passageHits: StatementSync;
  readonly #fallbacks: StatementSync;
  /** Parsed signals by page id, valid while the index's data_version stays the same. */
  readonly #kept = new Map<number, Signals>();
  #keptVersion = -1;

  constructor(file: string) {
    this.#db = new DatabaseSync(file, { readOnly: true });
    this.#db.exec('PRAGMA busy_timeout = 5000');
    const w = FIELD_WEIGHTS;
    const weights = [w.title, w.headings, w.url, w.terms, w.anchors, w.body].join(', ');
    const among = 'IN (SELECT value FROM json_each(?))';
    this.#candidates = this.#db.prepare(`SELECT rowid AS id, -bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, ${weights}) LIMIT ${CANDIDATES}`);
    // The same, with whether each page holds every concept: the set of pages matching all of them
    // is one doclist intersection (no scoring), evaluated once for the statement (decision 0017).
    this.#covered = this.#db.prepare(`SELECT rowid AS id, -bm25(fts, ${weights}) AS s, rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?2) AS a
      FROM fts WHERE fts MATCH ?1 ORDER BY bm25(fts, ${weights}) LIMIT ${CANDIDATES}`);
    this.#version = this.#db.prepare('PRAGMA data_version');
    // Which passages of the result pages hold a word starting with one of the query's words.
    this.#passageHits = this.#db.prepare(`SELECT w.page_id AS page, n.key AS needle, w.ords AS ords FROM json_each(?1) pg, json_each(?2) n
      JOIN passage_words w ON w.page_id = pg.value AND w.word >= n.value AND w.word < n.value || char(1114111)`);
    this.#passages = this.#db.prepare(`SELECT id, block, extra FROM passages WHERE id ${among}`);
    this.#fallbacks = this.#db.prepare(`SELECT id, text FROM snippet_fallback WHERE id ${among}`);
    // The best definers over all heads of the query: a page's definition weight times the head's.
    this.#definers = this.#db.prepare(`SELECT d.page_id AS id, max(d.weight * (h.value ->> 'w')) AS weight FROM json_each(?) h
      JOIN defs d ON d.head = h.value ->> 'h' GROUP BY d.page_id ORDER BY weight DESC LIMIT ${MAX_DEFINERS}`);
    // The same, with whether each definer holds every concept (as in #covered).
    this.#definersCovered = this.#db.prepare(`SELECT d.page_id AS id, max(d.weight * (h.value ->> 'w')) AS weight,
      d.page_id IN (SELECT rowid FROM fts WHERE fts MATCH ?2) AS a FROM json_each(?1) h
      JOIN defs d ON d.head = h.value ->> 'h' GROUP BY d.page_id ORDER BY weight DESC LIMIT ${MAX_DEFINERS}`);
    this.#signals = this.#db.prepare(`SELECT id, url, title, headings, lang_shares, markup_lang, url_lang, inlinks FROM signals WHERE id ${among}`);
    this.#content = this.#db.prepare(`SELECT id, substr(body, 1, ${SNIPPET_SCAN}) AS body, description FROM pages WHERE id ${among}`);
  }

  search(req: SearchRequest): SearchResult[] {
    const parsed = parseQuery(req.query);
    const real = parsed.concepts.filter((c) => !c.stop);
    const concepts: Concept[] = real.length ? real : parsed.concepts;
    if (!concepts.length) return [];
    const any = matchAny(concepts, parsed.joins);
    const all = concepts.length > 1 ? matchAll(concepts) : null;
    const rows = (all ? this.#covered.all(any, all) : this.#candidates.all(any)) as { id: number; s: number; a?: number }[];
    // Pages that define what was typed join the candidates even when BM25 ranked them low.
    const heads = queryHeads(parsed.concepts);
    const defines = new Map<number, number>();
    const definersCover = new Set<number>();
    if (heads.length) {
      const list = JSON.stringify(heads.map((h) => ({ h: h.head, w: h.weight })));
      for (const r of (all ? this.#definersCovered.all(list, all) : this.#definers.all(list)) as { id: number; weight: number; a?: number }[]) {
        defines.set(r.id, r.weight);
        if (r.a) definersCover.add(r.id);
      }
    }
    // Coverage counts for the head of the list and for definers (as before decision 0017).
    const covers = new Set<number>();
    const known = new Set<number>();
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i] as { id: number; s: number; a?: number };
      known.add(r.id);
      if (r.a && (i < FEATURE_DEPTH || defines.has(r.id))) covers.add(r.id);
    }
    for (const id of defines.keys()) {
      if (known.has(id)) continue;
      rows.push({ id, s: 0 });
      if (definersCover.has(id)) covers.add(id);
    }
    if (!rows.length) return [];
    const signals = this.#signalsOf(rows);
    const max = rows[0]?.s ?? 0;
    const scored: { c: Candidate; s: number }[] = [];
    for (const r of rows) {
      const p = signals.get(r.id);
      if (!p) continue;
      const c: Candidate = {
        id: r.id,
        bm25: r.s,
        coversAll: all ? covers.has(r.id) : true,
        title: p.title,
        headings: p.headings,
        url: p.url,
        langShares: p.langShares,
        markupLang: p.markupLang,
        urlLang: p.urlLang,
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
    return this.#snippets(top, concepts);
  }

  /** Ranking signals of the candidates: from memory, read (and parsed) once per page and index version. */
  #signalsOf(rows: readonly { id: number }[]): Map<number, Signals> {
    const version = (this.#version.get() as { data_version: number }).data_version;
    if (version !== this.#keptVersion || this.#kept.size > SIGNALS_KEPT) {
      this.#kept.clear();
      this.#keptVersion = version;
    }
    const missing: number[] = [];
    for (const r of rows) if (!this.#kept.has(r.id)) missing.push(r.id);
    if (missing.length) {
      for (const p of this.#signals.all(ids(missing)) as SignalRow[]) {
        this.#kept.set(p.id, {
          url: p.url,
          title: p.title,
          headings: p.headings,
          langShares: JSON.parse(p.lang_shares) as Record<string, number>,
          markupLang: p.markup_lang,
          urlLang: p.url_lang,
          inlinks: p.inlinks,
        });
      }
    }
    return this.#kept;
  }

  /** Snippets from the passages prepared at index time that hold a word of the query (decision
   * 0017); a page indexed before they existed gets its snippet from its text, as before. */
  #snippets(top: readonly Candidate[], concepts: readonly Concept[]): SearchResult[] {
    const fallbacks = new Map((this.#fallbacks.all(ids(top.map((c) => c.id))) as { id: number; text: string }[]).map((r) => [r.id, r.text]));
    const needles = snippetNeedles(concepts);
    const joins = snippetJoins(concepts);
    // The hit passages of each page and the needles each holds, then their text: first those with
    // the page's highest bound, then only those whose bound could still beat the best read so far.
    const byPage = new Map<number, Passage[]>();
    if (needles.length && fallbacks.size) {
      const present = new Map<number, Set<number>>();
      for (const r of this.#passageHits.all(ids([...fallbacks.keys()]), JSON.stringify(needles)) as { page: number; needle: number; ords: string }[]) {
        for (const o of r.ords.split(',')) {
          const id = r.page * PASSAGE_SLOTS + Number(o);
          const set = present.get(id);
          if (set) set.add(r.needle);
          else present.set(id, new Set([r.needle]));
        }
      }
      const bounds = new Map<number, number>();
      const top = new Map<number, number>();
      for (const [id, set] of present) {
        const b = passageBound(set, concepts, joins, needles);
        if (b <= 0) continue;
        bounds.set(id, b);
        const page = Math.floor(id / PASSAGE_SLOTS);
        if (b > (top.get(page) ?? 0)) top.set(page, b);
      }
      const first = [...bounds].filter(([id, b]) => b === top.get(Math.floor(id / PASSAGE_SLOTS))).map(([id]) => id);
      const read = this.#readPassages(first, byPage);
      const best = new Map<number, { id: number; adjusted: number }>();
      for (const [page, list] of byPage) {
        const b = bestPassage(list, concepts, joins);
        if (b) best.set(page, { id: (b.passage as Passage & { id: number }).id, adjusted: b.adjusted });
      }
      const more: number[] = [];
      for (const [id, b] of bounds) {
        if (read.has(id)) continue;
        const to = best.get(Math.floor(id / PASSAGE_SLOTS));
        if (!to || b > to.adjusted || (b >= to.adjusted && id < to.id)) more.push(id);
      }
      this.#readPassages(more, byPage);
      for (const list of byPage.values()) list.sort((a, b) => (a as Passage & { id: number }).id - (b as Passage & { id: number }).id);
    }
    const old = top.filter((c) => !fallbacks.has(c.id));
    const content = old.length ? new Map((this.#content.all(ids(old.map((c) => c.id))) as { id: number; body: string; description: string }[]).map((r) => [r.id, r])) : null;
    return top.map((c) => {
      const fallback = fallbacks.get(c.id);
      let snippet: string;
      if (fallback !== undefined) {
        snippet = snippetFromPassages(byPage.get(c.id) ?? [], fallback, concepts, joins);
      } else {
        const t = content?.get(c.id);
        snippet = makeSnippet(t?.body ?? '', t?.description ?? '', concepts, c.title);
      }
      return { url: c.url, title: c.title, snippet };
    });
  }

  /** Reads passages by id into per-page lists; returns the ids read. */
  #readPassages(list: readonly number[], byPage: Map<number, Passage[]>): Set<number> {
    const read = new Set<number>();
    if (!list.length) return read;
    for (const r of this.#passages.all(ids(list)) as (Passage & { id: number })[]) {
      read.add(r.id);
      const page = Math.floor(r.id / PASSAGE_SLOTS);
      const pages = byPage.get(page);
      if (pages) pages.push(r);
      else byPage.set(page, [r]);
    }
    return read;
  }

  count(): number {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM pages').get() as { n: number }).n;
  }

  close(): void {
    this.#db.close();
  }
}
