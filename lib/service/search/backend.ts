import type { PageDocument } from './document.ts';
import { siteFiltersKey } from './sites.ts';

/**
 * The one interface between the search API (and the indexer) and an index engine. The default
 * engine is SQLite FTS5 (./sqlite/); another one (a remote engine, an in-memory double in tests)
 * implements the same two halves without the API noticing.
 */

export type SearchRequest = {
  query: string;
  /** Two-letter language code (lower case) that biases results. */
  language: string;
  /** How many results, from `offset`. */
  limit: number;
  /** How many of the best results to skip (paging; default 0): offset + limit is at most MAX_DEPTH. */
  offset?: number;
  /** Only pages on these hosts or hosts under them (lower case, as the protocol normalises them). */
  sites?: readonly string[];
  /** No pages on these hosts or hosts under them; an exclusion wins over `sites`. */
  excludeSites?: readonly string[];
  /** Search the words as typed, without correcting misspelt ones (decision 0080). */
  exact?: boolean;
};

/** One key for one answer: every field of the request that changes it (the answer caches, a
 * node's recent searches). */
export const searchRequestKey = (r: SearchRequest): string =>
  `${r.language}\n${r.limit}\n${r.offset ?? 0}\n${r.exact ? 'exact' : ''}\n${siteFiltersKey(r)}\n${r.query}`;

/** `language`: what the page is written in (two letters), when known; `section`: the page's place in
 * its manual, outermost first (`PostgreSQL 15.20 Documentation`, `Chapter 9. …`, `9.7. Pattern
 * Matching`), when its markup says; `favicon`: the icon its site declares (an http(s) address, or a
 * small `data:image/…` one), from the index. */
export type SearchResult = { url: string; title: string; snippet: string; language?: string; section?: string[]; favicon?: string };

/** Why a search is offered to try after one that found nothing (tries.ts): its words corrected
 * (it was searched as typed), fewer words, its longest word alone, English, or every site. */
export type TryReason = 'corrected' | 'fewer-words' | 'one-word' | 'english' | 'every-site';

/** A search that finds something, offered when this one found nothing: what to send to run it
 * (not exact; `sites` and `excludeSites` present only when it keeps to some). */
export type SearchTry = { query: string; language: string; sites?: string[]; excludeSites?: string[]; why: TryReason };

/** Ranked results, the query actually searched when some of its words were corrected, where the
 * next page starts when one follows (absent on the last page, and past MAX_DEPTH), and, on the
 * first page of a search that found nothing, the searches to try that find something (tries.ts). */
export type SearchAnswer = { results: SearchResult[]; corrected?: { query: string }; next?: { offset: number }; tries?: SearchTry[] };

/** `warming`: the query threads are still reading what a first search reads (they answer
 * searches meanwhile, after it). */
export type IndexStats = { pages: number; warming?: true };

export interface SearchBackend {
  /** Ranked results, duplicates collapsed. Rejects with BackendUnavailable when the index cannot answer. */
  search(request: SearchRequest): Promise<SearchAnswer>;
  stats(): Promise<IndexStats>;
  /** Opens the index if nothing has yet, and resolves once its query threads have read what a
   * first search reads (every page's length, host and languages: seconds at 10⁶ pages). Rejects as
   * stats() does when the index cannot be opened. */
  warm(): Promise<void>;
  close(): void;
}

/** A page as fetched: the address it was fetched from and its HTML. */
export type FetchedPage = { url: string; html: string };

export type UpsertOutcome = 'added' | 'replaced' | 'merged';

/** The steps of IndexWriter.finish(), in this order: bringing an index an older version wrote up
 * to this one's (once, and only for such an index), each changed page's searchable text (with the
 * anchor text of links to it), the term lists, the rows kept by word put in their order
 * (sqlite/staged-rows.ts), the pages' ranks from the links between them, and optimising the index
 * files. */
export type FinishStep = 'upgrade' | 'text' | 'terms' | 'words' | 'rank' | 'optimise';

export interface IndexWriter {
  /** Add or replace one page. 'merged': another address of a page already seen in this run. */
  upsert(doc: PageDocument): UpsertOutcome;
  /** Bring derived data (anchor text, full-text rows) up to date; `progress` is told how far each
   * step is. One that throws leaves what it committed and may be called again. */
  finish(progress?: (step: FinishStep, done: number, total: number) => void): void;
  close(): void;
}

/** The index or engine failed to answer (missing, corrupt, locked, unreachable). */
export class BackendUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackendUnavailable';
  }
}
