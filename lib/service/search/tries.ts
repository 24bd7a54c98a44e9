import type { SearchAnswer, SearchBackend, SearchRequest, SearchTry, TryReason } from './backend.ts';

/**
 * Searches to try when a search found nothing (issue 29, decision 0114): the words corrected when
 * they were searched as typed, fewer words (the query without its last word), its longest word
 * alone, English instead of another language, and every site instead of the chosen ones. Each keeps
 * the search's sites but the last, and each is searched once with limit 1 against the same index,
 * so that the answer lists only those that find something and a client spends no search on them.
 */
export function triesFor(request: SearchRequest): SearchTry[] {
  const words = request.query.split(/\s+/u).filter(Boolean);
  const sites = {
    ...(request.sites?.length ? { sites: [...request.sites] } : {}),
    ...(request.excludeSites?.length ? { excludeSites: [...request.excludeSites] } : {}),
  };
  const tries: SearchTry[] = [];
  const add = (why: TryReason, query: string, language: string, keepSites = true) =>
    tries.push({ query, language, ...(keepSites ? sites : {}), why });
  const shorter = words.length > 1 ? words.slice(0, -1).join(' ') : null;
  const longest = words.length > 2 ? [...words].sort((a, b) => b.length - a.length)[0]! : null;
  if (request.exact) add('corrected', request.query, request.language);
  if (shorter) add('fewer-words', shorter, request.language);
  if (longest && longest !== shorter) add('one-word', longest, request.language);
  if (request.language !== 'en') add('english', request.query, 'en');
  if (request.sites?.length || request.excludeSites?.length) add('every-site', request.query, request.language, false);
  return tries;
}

/**
 * The answer with `tries` added when it is the first page of a search that found nothing and some
 * of the searches to try find something; else the answer as it was. The tries run one after the
 * other (at most five searches of one result each), so that one request holds one query worker at
 * a time, as any other search does.
 */
export async function withTries(backend: SearchBackend, request: SearchRequest, answer: SearchAnswer): Promise<SearchAnswer> {
  if (answer.results.length > 0 || (request.offset ?? 0) > 0) return answer;
  const found: SearchTry[] = [];
  for (const t of triesFor(request)) {
    const probe = await backend.search({ query: t.query, language: t.language, limit: 1, sites: t.sites, excludeSites: t.excludeSites });
    if (probe.results.length > 0) found.push(t);
  }
  return found.length ? { ...answer, tries: found } : answer;
}
