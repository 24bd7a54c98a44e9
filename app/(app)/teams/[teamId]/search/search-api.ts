import {
  RESULTS_PER_PAGE,
  type RateState,
  type SearchAnswer,
  type SearchFailureBody,
  type SearchFailureCode,
} from '#portal/search/types.ts';

/** A failed search as the page handles it: a code to act on and a sentence to show, never raw JSON. */
export class SearchError extends Error {
  readonly code: SearchFailureCode;
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly rate: RateState | null;
  readonly at: number;
  constructor(status: number, body: Partial<SearchFailureBody> | null, at: number) {
    super(typeof body?.error === 'string' ? body.error : `The search failed (status ${status}).`);
    this.status = status;
    this.code = body?.code ?? (status >= 500 ? 'upstream_failed' : 'upstream_rejected');
    this.retryAfterSeconds = body?.retryAfterSeconds;
    this.rate = body?.rate ?? null;
    this.at = at;
  }
}

/** The request body of a page's search: fields left out when they ask for nothing. */
export function searchBody(s: PageSearch) {
  return {
    query: s.query,
    language: s.language,
    count: RESULTS_PER_PAGE,
    ...(s.exact ? { exact: true } : {}),
    ...(s.offset ? { offset: s.offset } : {}),
    ...(s.sites.length ? { sites: s.sites } : {}),
    ...(s.excludeSites.length ? { excludeSites: s.excludeSites } : {}),
  };
}

export type ReceivedAnswer = SearchAnswer & { receivedAt: number };

/** What the page asks the portal for: the words, and the page and sites the box and the address say
 * (as the answer echoes them). */
export type PageSearch = Pick<SearchAnswer, 'query' | 'language' | 'exact' | 'offset' | 'sites' | 'excludeSites'>;

export async function postSearch(teamId: string, s: PageSearch, signal?: AbortSignal): Promise<ReceivedAnswer> {
  let res: Response;
  try {
    res = await fetch(`/api/teams/${encodeURIComponent(teamId)}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(searchBody(s)),
      credentials: 'same-origin',
      signal: signal ?? null,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new SearchError(0, { code: 'upstream_failed', error: 'The portal could not be reached. Check your connection.' }, Date.now());
  }
  const body = (await res.json().catch(() => null)) as unknown;
  if (res.ok) return { ...(body as SearchAnswer), receivedAt: Date.now() };
  if (res.status === 401)
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  throw new SearchError(res.status, body as Partial<SearchFailureBody> | null, Date.now());
}

/** Bounded backoff for a failed upstream: 1 s, 2 s, 4 s, then the page stops and says so. */
export const MAX_UPSTREAM_RETRIES = 3;
export const retryDelayMs = (attempt: number) => Math.min(1000 * 2 ** attempt, 8_000);
