import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Concept } from '../tokenize.ts';
import { matchAll, matchAny } from './match.ts';
import { FIELD_WEIGHTS } from './schema.ts';

export type Ranked = { id: number; s: number };

/** The pages a query may answer with, by id (allowed[id] is 1): its site filters (site-pages.ts). */
export type AllowedPages = Uint8Array;

/**
 * The first stage of a query: the pages holding any of its concepts (or joined forms of adjacent
 * words), by field-weighted BM25, and which of them hold every concept. Two implementations with
 * the same scores: our own postings (postings.ts, the normal path) and FTS5's bm25() (this file,
 * for an index whose postings are not built yet).
 */
export interface FirstStage {
  /** The `k` best, best first; with `allowed`, the `k` best of those pages. */
  rank(concepts: readonly Concept[], joins: readonly string[], k: number, allowed?: AllowedPages | null): Ranked[];
  /** Those of `ids` that hold every concept of the last rank() call (of two or more concepts). */
  covering(ids: Iterable<number>): Set<number>;
  /** How much of the last rank() call's query each of `ids` holds, from 0 to 1: the share of its
   * concepts the page holds; null when not known. */
  matched(ids: Iterable<number>): Map<number, number> | null;
  /**
   * The pages holding every concept of the last rank() call (of one concept, its pages), ascending:
   * the pages that name together what the query names, for which site holds them (query.ts). Null
   * when they may be more than `limit`: the postings give up when the concept held by the fewest
   * pages is held by more, FTS5 when more than `limit` pages match. The array may be one the stage
   * keeps (a list's own pages): it must not be changed.
   */
  holdingAll(limit: number): Uint32Array | null;
  /** The score rank() gives each of `ids` (pages holding none of the query are left out), for
   * pages that join the candidates from elsewhere, below its `k` best. */
  scores(ids: readonly number[]): Map<number, number>;
}

export class FtsStage implements FirstStage {
  readonly #candidates: StatementSync;
  readonly #candidatesAmong: StatementSync;
  readonly #covering: StatementSync;
  readonly #holding: StatementSync;
  #all: string | null = null;
  #any = '';

  constructor(db: DatabaseSync) {
    const w = FIELD_WEIGHTS;
    const weights = [w.title, w.headings, w.url, w.terms, w.anchors, w.body].join(', ');
    this.#candidates = db.prepare(
      `SELECT rowid AS id, -bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, ${weights}) LIMIT ?`,
    );
    this.#candidatesAmong = db.prepare(
      `SELECT rowid AS id, -bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))
       ORDER BY bm25(fts, ${weights}) LIMIT ?`,
    );
    this.#covering = db.prepare('SELECT rowid AS id FROM fts WHERE fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))');
    this.#holding = db.prepare('SELECT rowid AS id FROM fts WHERE fts MATCH ? LIMIT ?');
  }

  rank(concepts: readonly Concept[], joins: readonly string[], k: number, allowed: AllowedPages | null = null): Ranked[] {
    this.#all = concepts.length > 1 ? matchAll(concepts) : null;
    this.#any = matchAny(concepts, joins);
    if (!allowed) return this.#candidates.all(this.#any, k) as Ranked[];
    const among: number[] = [];
    for (let id = 0; id < allowed.length; id++) if (allowed[id]) among.push(id);
    return this.#candidatesAmong.all(this.#any, JSON.stringify(among), k) as Ranked[];
  }

  scores(ids: readonly number[]): Map<number, number> {
    if (!ids.length || !this.#any) return new Map();
    const rows = this.#candidatesAmong.all(this.#any, JSON.stringify(ids), ids.length) as Ranked[];
    return new Map(rows.map((r) => [r.id, r.s]));
  }

  matched(): null {
    return null;
  }

  holdingAll(limit: number): Uint32Array | null {
    const match = this.#all ?? this.#any;
    if (!match) return new Uint32Array(0);
    const rows = this.#holding.all(match, limit + 1) as { id: number }[];
    return rows.length > limit ? null : Uint32Array.from(rows, (r) => r.id).sort();
  }

  covering(ids: Iterable<number>): Set<number> {
    const list = [...ids];
    if (!this.#all || !list.length) return new Set();
    return new Set((this.#covering.all(this.#all, JSON.stringify(list)) as { id: number }[]).map((r) => r.id));
  }
}
