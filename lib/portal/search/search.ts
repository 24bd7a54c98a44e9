import type { PortalData, RecentSearch, TeamKey } from '../data/portal-data.ts';
import { checkSearchRequest, type SearchBody } from '#shared/protocol/search.ts';
import { ServiceHealthReader } from '../service-client/health.ts';
import { requireRole, type Actor } from '../teams/access.ts';
import { AnswerCache } from './cache.ts';
import { writeSiteWords } from './operators.ts';
import { normaliseQueryText, type RateState, type SearchAnswer, type SearchHit, type SearchTry } from './types.ts';
import { callSearch, SearchFailed, type UpstreamAnswer } from './upstream.ts';
import { withTeamKey, type Vault } from '../keys/vault.ts';

/**
 * The portal's search (the BFF behind the hosted search page): validate as the service does, so
 * a bad query costs no upstream request; answer from the cache when it can (no quota used);
 * otherwise call the service with the team's default key, which never leaves the server.
 */
export type SearchSettings = { url: string; cacheEntries: number; cacheTtlMs: number };

type Cached = { results: SearchHit[]; corrected: string | null; next: { offset: number } | null; tries: SearchTry[]; indexEmpty: boolean };

const RECENT_KEEP = 20;
export const RECENT_SHOWN = 8;
const INDEX_STATE_MS = 10_000;

/** What one portal process remembers about searching: the answer cache and the keys' last limit state. */
export class SearchProxy {
  readonly settings: SearchSettings;
  readonly cache: AnswerCache<Cached>;
  readonly #now: () => number;
  /** Per team key: the limit state the service last reported, and when. */
  readonly #rates = new Map<string, { rate: RateState; at: number }>();
  readonly #health: ServiceHealthReader;

  constructor(settings: SearchSettings, now: () => number = Date.now) {
    this.settings = settings;
    this.#now = now;
    this.cache = new AnswerCache<Cached>({ entries: settings.cacheEntries, ttlMs: settings.cacheTtlMs, now });
    this.#health = new ServiceHealthReader(settings.url, INDEX_STATE_MS, now);
  }

  now(): number {
    return this.#now();
  }

  noteRate(keyId: string, rate: RateState | null): void {
    if (rate) this.#rates.set(keyId, { rate, at: this.#now() });
    if (this.#rates.size > 10_000) this.#rates.delete(this.#rates.keys().next().value as string);
  }

  /** The key's limit state now: the last reported one, aged by the time since (a window slides on). */
  rateNow(keyId: string): RateState | null {
    const seen = this.#rates.get(keyId);
    if (!seen) return null;
    const elapsed = Math.floor((this.#now() - seen.at) / 1000);
    const left = seen.rate.resetSeconds - elapsed;
    if (left <= 0) return { ...seen.rate, remaining: seen.rate.limit, resetSeconds: 0 };
    return { ...seen.rate, resetSeconds: left };
  }

  /** Whether the service's index is empty (asked at most every 10 s); null when unknown. */
  async indexEmpty(): Promise<boolean | null> {
    const pages = (await this.#health.read())?.searchPages ?? null;
    return pages === null ? null : pages === 0;
  }
}

/**
 * The normal form of a search: Unicode NFC, whitespace trimmed and collapsed, the language's two
 * letters in lower case (as the service reads them), the sites in lower case, sorted, without
 * repeats. Case is kept in the words: the service ranks identifiers by their case-split parts
 * (`getElementById`), so `Foo` and `foo` may answer differently.
 */
export function normaliseSearch(input: unknown): SearchBody {
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const query = typeof raw.query === 'string' ? normaliseQueryText(raw.query) : raw.query;
  const language = raw.language === undefined || raw.language === '' ? undefined : raw.language;
  const given = Object.fromEntries(
    (['exact', 'count', 'offset', 'sites', 'excludeSites'] as const).filter((f) => raw[f] !== undefined).map((f) => [f, raw[f]]),
  );
  // The service's own rules (lib/shared/protocol/search.ts), so that a bad query never costs a request.
  const checked = checkSearchRequest({ query, language, ...given });
  if (checked.ok) return checked.body;
  const [first] = checked.issues;
  throw new SearchFailed('invalid', first ? `${first.field}: ${first.message}` : 'invalid search', { issues: checked.issues });
}

/** Most bytes a recent search keeps (it is part of a primary key, which PostgreSQL bounds at 2704). */
const RECENT_MAX_BYTES = 2000;

/** A search as the search box shows it, sites included, so that picking it again searches the
 * same; its words alone when that would be too long to keep. */
function recentText(q: SearchBody): string {
  const text = writeSiteWords(q);
  return new TextEncoder().encode(text).length <= RECENT_MAX_BYTES ? text : q.query;
}

/** The cache's key: the team, the language, whether typing mistakes may be corrected, the page
 * (`count` as asked: the service's default is not known here), the sites, the words. */
export const cacheKey = (teamId: string, q: SearchBody) =>
  [
    teamId,
    q.language,
    q.exact ? 'exact' : 'any',
    q.count ?? 'default',
    q.offset ?? 0,
    (q.sites ?? []).join(' '),
    (q.excludeSites ?? []).join(' '),
    q.query,
  ].join('\n');

async function defaultKey(data: PortalData, teamId: string): Promise<TeamKey> {
  const key = (await data.keys(teamId)).find((k) => k.isDefault && k.revokedAt === null);
  if (!key) throw new SearchFailed('no_key', 'This team has no default API key to search with.');
  return key;
}

export type SearchDeps = { data: PortalData; vault: Vault; search: SearchProxy };

/**
 * One search by a member of a team. Order: membership (404 for anyone else), the rules (400),
 * the team's key (409 when there is none), the cache, then the service. Successful searches
 * join the user's recent ones when `record` is set.
 */
export async function searchForMember(
  deps: SearchDeps,
  actor: Actor,
  teamId: string,
  input: unknown,
  opts: { record: boolean },
): Promise<SearchAnswer> {
  await requireRole(deps.data, actor, teamId, 'member');
  const q = normaliseSearch(input);
  const key = await defaultKey(deps.data, teamId);
  const proxy = deps.search;
  const loaded = await proxy.cache.load(
    cacheKey(teamId, q),
    async () => {
      let upstream: UpstreamAnswer;
      try {
        upstream = await withTeamKey(deps.vault, actor, teamId, key.id, 'search', (token) => callSearch(proxy.settings.url, token, q));
      } catch (err) {
        if (err instanceof SearchFailed) proxy.noteRate(key.id, err.rate);
        throw err;
      }
      proxy.noteRate(key.id, upstream.rate);
      const indexEmpty = upstream.results.length === 0 ? (await proxy.indexEmpty()) === true : false;
      return { results: upstream.results, corrected: upstream.corrected, next: upstream.next, tries: upstream.tries, indexEmpty };
    },
    // "The index is empty" is a passing state: the next search should find the pages indexed since.
    (v) => !v.indexEmpty,
  );
  // A further page of a search is no new search to remember.
  if (opts.record && !q.offset)
    await deps.data.recordSearch(actor.userId, { query: recentText(q), language: q.language, searchedAt: proxy.now() }, RECENT_KEEP);
  return {
    query: q.query,
    language: q.language,
    exact: q.exact === true,
    offset: q.offset ?? 0,
    sites: q.sites ?? [],
    excludeSites: q.excludeSites ?? [],
    next: loaded.value.next,
    corrected: loaded.value.corrected,
    results: loaded.value.results,
    tries: loaded.value.tries,
    cached: loaded.cached,
    ageSeconds: loaded.cached ? Math.max(0, Math.round((proxy.now() - loaded.storedAt) / 1000)) : 0,
    indexEmpty: loaded.value.indexEmpty,
    rate: proxy.rateNow(key.id),
  };
}

export async function recentSearches(data: PortalData, actor: Actor): Promise<RecentSearch[]> {
  return data.recentSearches(actor.userId, RECENT_SHOWN);
}

export async function clearRecentSearches(data: PortalData, actor: Actor): Promise<void> {
  await data.clearRecentSearches(actor.userId);
}
