/**
 * What the portal's search route (POST /api/teams/:teamId/search) answers, shared by the server
 * and the page. Plain data only: this module is imported by browser code.
 */
import type { ErrorBody, ErrorCode } from '#shared/errors.ts';

/**
 * One result. When the service says (docs/api.md): `language` (two letters) is what the page is
 * written in, `section` its place in its manual (outermost first), `favicon` its site's icon
 * (an https or a data:image address).
 */
/** Why the service offers a search to try after one that found nothing (docs/api.md, `tries`). */
export const TRY_REASONS = ['corrected', 'fewer-words', 'one-word', 'english', 'every-site'] as const;
export type TryReason = (typeof TRY_REASONS)[number];

/** A search the service checked finds something, offered when this one found nothing: its words,
 * language and sites (empty lists: every site), never as typed. */
export type SearchTry = { query: string; language: string; sites: string[]; excludeSites: string[]; why: TryReason };

export type SearchHit = { url: string; title: string; snippet: string; language?: string; section?: string[]; favicon?: string };

/**
 * The team key's limit as the search service last reported it. `resetSeconds` counts from the
 * moment the answer left the portal: while searches remain, until the whole quota is back; at 0
 * remaining, until one more search is allowed.
 */
export type RateState = { limit: number; remaining: number; resetSeconds: number; windowSeconds: number | null };

export type SearchAnswer = {
  query: string;
  language: string;
  /** The words were searched as typed, with no correction of typing mistakes. */
  exact: boolean;
  /** How many results of the search come before these (paging). */
  offset: number;
  /** Only pages on these hosts (and hosts under them); none on `excludeSites`. Empty: every site. */
  sites: string[];
  excludeSites: string[];
  /** Where the next page of results starts; null on the last one. */
  next: { offset: number } | null;
  /** The words the service searched instead, when it corrected a typing mistake; null when it did not. */
  corrected: string | null;
  results: SearchHit[];
  /** On the first page of a search that found nothing: the searches to try that the service
   * checked find something (empty when none does, and on every other answer). */
  tries: SearchTry[];
  /** True when the portal answered from its cache: no request reached the service, no quota used. */
  cached: boolean;
  /** How old the answer is, in seconds (0 for a fresh one). */
  ageSeconds: number;
  /** True when the service's index holds no pages at all (so no query can find anything). */
  indexEmpty: boolean;
  rate: RateState | null;
};

/** Why a search failed, as the page needs to tell it apart (codes from lib/shared/errors.ts). */
export const SEARCH_FAILURE_CODES = [
  'invalid', // the query breaks the request rules (never sent to the service)
  'no_key', // the team has no usable default key
  'key_refused', // the service refused the team's key (401)
  'rate_limited', // the key's limit is used up (429); retryAfterSeconds says when to try again
  'upstream_failed', // the service or its index failed (502, 5xx, unreachable, timeout)
  'upstream_rejected', // any other answer the portal did not expect
] as const satisfies readonly ErrorCode[];

export type SearchFailureCode = (typeof SEARCH_FAILURE_CODES)[number];

export const isSearchFailureCode = (code: string): code is SearchFailureCode => (SEARCH_FAILURE_CODES as readonly string[]).includes(code);

/** The portal's error body (lib/shared/errors.ts) with the search's own fields. */
export type SearchFailureBody = ErrorBody & { code: SearchFailureCode; rate?: RateState | null };

export const SEARCH_LANGUAGES: readonly { code: string; name: string }[] = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'es', name: 'Español' },
  { code: 'fr', name: 'Français' },
  { code: 'it', name: 'Italiano' },
  { code: 'ja', name: '日本語' },
  { code: 'ko', name: '한국어' },
  { code: 'nl', name: 'Nederlands' },
  { code: 'pl', name: 'Polski' },
  { code: 'pt', name: 'Português' },
  { code: 'ru', name: 'Русский' },
  { code: 'uk', name: 'Українська' },
  { code: 'zh', name: '中文' },
];

/** Results on a page of the hosted search page. */
export const RESULTS_PER_PAGE = 10;

/** A query's text as the portal sends and caches it: Unicode NFC, whitespace trimmed and collapsed. */
export const normaliseQueryText = (q: string): string => q.normalize('NFC').replace(/\s+/gu, ' ').trim();
