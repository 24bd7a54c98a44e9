import type { CallOptions, Http } from './http.ts';

/** The body of `POST /v0/search` (docs/api.md, "Search"); the service validates every field. */
export type SearchRequest = {
  /** 1 to 348 characters. */
  query: string;
  /** Two letters (`en`, `fr`, `pt-BR` is `pt`): a bias towards pages in that language. Default `en`. */
  language?: string;
  /** Search the words as typed, without correcting misspelt ones. */
  exact?: boolean;
  /** 1 to 50 results (default the service's `SEARCH_RESULTS`, 10). */
  count?: number;
  /** How many of the best results to skip; `offset + count` at most 200. */
  offset?: number;
  /** Only these hosts and the hosts under them (at most 20). */
  sites?: string[];
  /** Never these hosts nor the hosts under them (at most 20); wins over `sites`. */
  excludeSites?: string[];
};

export type SearchResult = {
  url: string;
  title: string;
  snippet: string;
  /** The page's language, two letters, when known. */
  language?: string;
  /** The page's place in its manual or site, outermost first. */
  section?: string[];
  /** The icon its site declares, when it declares one. */
  favicon?: string;
};

/** A search that finds something, offered when one found nothing: send its `query`, `language`
 * and sites (absent: every site) to run it. `why`: its words corrected, fewer words, its longest
 * word alone, English, or every site. */
export type SearchTry = {
  query: string;
  language: string;
  sites?: string[];
  excludeSites?: string[];
  why: 'corrected' | 'fewer-words' | 'one-word' | 'english' | 'every-site';
};

/** The key's search quota as the answer's headers state it. */
export type RateLimitState = {
  /** Requests allowed per window. */
  limit: number;
  /** Requests still allowed now. */
  remaining: number;
  /** Seconds until the full quota is back (or, at 0 remaining, until one more is allowed). */
  reset: number;
};

export type SearchResponse = {
  results: SearchResult[];
  /** Present when another page follows: search again with this `offset`. */
  next?: { offset: number };
  /** Present when words were corrected: the words actually searched. */
  corrected?: { query: string };
  /** On the first page of a search that found nothing: the searches the service checked find
   * something, none when none does. Asking for them cost no search. */
  tries?: SearchTry[];
  /** Undefined when the service sent no rate-limit headers. */
  rateLimit?: RateLimitState;
};

export async function search(http: Http, request: SearchRequest, call: CallOptions = {}): Promise<SearchResponse> {
  return http.send(
    {
      method: 'POST',
      path: '/v0/search',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    },
    call,
    async (res) => {
      const answer = (await res.json()) as SearchResponse;
      const rateLimit = rateLimitOf(res.headers);
      return rateLimit ? { ...answer, rateLimit } : answer;
    },
  );
}

function rateLimitOf(headers: Headers): RateLimitState | undefined {
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) =>
    Number(headers.get(h) ?? NaN),
  );
  if (![limit, remaining, reset].every((n) => Number.isFinite(n))) return undefined;
  return { limit: limit as number, remaining: remaining as number, reset: reset as number };
}
