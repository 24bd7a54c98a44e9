'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { usePathname, useSearchParams } from 'next/navigation.js';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { RecentSearch } from '#portal/data/portal-data.ts';
import { readSiteWords } from '#portal/search/operators.ts';
import {
  normaliseQueryText,
  RESULTS_PER_PAGE,
  SEARCH_LANGUAGES,
  type RateState,
  type SearchAnswer,
  type SearchFailureBody,
} from '#portal/search/types.ts';
import { checkSearchRequest, codePoints, MAX_QUERY_CHARS } from '#shared/protocol/search.ts';
import { api } from '#app/_lib/client-api.ts';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Link } from '#app/_ui/link.tsx';
import { QuotaIndicator, type SeenRate } from './quota.tsx';
import { RecentSearches } from './recent.tsx';
import { Results } from './results.tsx';
import { readAddress, searchHref } from './address.ts';
import { Pager } from './pager.tsx';
import { SearchScope } from './scope.tsx';
import { MAX_UPSTREAM_RETRIES, postSearch, retryDelayMs, searchBody, SearchError, type ReceivedAnswer } from './search-api.ts';
import { SearchFailure } from './search-state.tsx';
import { useResultKeys } from './use-result-keys.ts';
import { NoResultsHelp, noResultsText } from './no-results.tsx';
import { Input } from '#app/_ui/input.tsx';
import { Select } from '#app/_ui/select.tsx';

export type InitialSearch = {
  /** The box's text (`site:` words included), as the address holds it. */
  text: string;
  language: string;
  exact: boolean;
  offset: number;
  answer: SearchAnswer | null;
  failure: (SearchFailureBody & { status: number }) | null;
  /** The key's limit as last seen by the portal, when no answer on this page says it. */
  rate: RateState | null;
};

type Props = { teamId: string; hasKey: boolean; canManage: boolean; initial: InitialSearch; recent: RecentSearch[] };

/** What each field of a request is called on this page, where its rules are broken. */
const FIELD_NAMES: Record<string, string> = { language: 'The language', sites: 'site:', excludeSites: '-site:' };

/** Check the box's text with the service's own rules before sending it; the message to show, or null. */
function problem(text: string, language: string): string | null {
  const box = readSiteWords(text);
  if (!box.query && box.sites.length + box.excludeSites.length > 0) return 'Type what you are looking for as well as the site.';
  const checked = checkSearchRequest(searchBody({ ...box, language, exact: false, offset: 0 }));
  if (checked.ok) return null;
  const issue = checked.issues[0];
  return issue ? `${FIELD_NAMES[issue.field] ?? 'The query'} ${issue.message}.` : 'This query cannot be searched.';
}

export function SearchClient({ teamId, hasKey, canManage, initial, recent }: Props) {
  const params = useSearchParams();
  const pathname = usePathname();
  // `q` is the box's text, `site:` words included; `exact=1` the words as typed, after "Search
  // instead for …" turned the correction down; `start` the results before this page.
  const { text: q, search: asked } = readAddress((name) => params.get(name));
  const { language: lang, exact, offset } = asked;
  const [draft, setDraft] = useState(q);
  // The language menu is part of the next search, like the box: changing it runs nothing by itself.
  const [draftLang, setDraftLang] = useState(lang);
  const [invalid, setInvalid] = useState<string | null>(null);
  // Back and forward change the address: the box and the menu follow. Adjusted while rendering, not
  // in an effect, so that mounting sets nothing and what was typed or chosen before hydration stays
  // (decisions 0115, 0116).
  const [address, setAddress] = useState({ q, lang });
  if (address.q !== q || address.lang !== lang) {
    setAddress({ q, lang });
    if (address.q !== q) {
      setDraft(q);
      setInvalid(null);
    }
    if (address.lang !== lang) setDraftLang(lang);
  }
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const client = useQueryClient();

  // The server's first answer (a shared link renders with results) and, if it failed, its failure.
  const [mountedAt] = useState(() => Date.now());
  const isInitial = q === initial.text && lang === initial.language && exact === initial.exact && offset === initial.offset;
  const [initialError] = useState(() => (initial.failure ? new SearchError(initial.failure.status, initial.failure, mountedAt) : null));
  // A failure other than an upstream one is not retried at once: a 429 waits for the reset, the rest for the user.
  const [gateOpen, setGateOpen] = useState(() => !initialError || initialError.code === 'upstream_failed');

  const search = useQuery<ReceivedAnswer, SearchError>({
    queryKey: ['search', teamId, lang, exact, offset, q],
    queryFn: ({ signal }) => postSearch(teamId, asked, signal),
    enabled: hasKey && q !== '' && !(isInitial && !gateOpen),
    initialData: isInitial && initial.answer ? { ...initial.answer, receivedAt: mountedAt } : undefined,
    staleTime: Infinity,
    gcTime: 10 * 60_000,
    refetchOnWindowFocus: false,
    retry: (n, err) => err instanceof SearchError && err.code === 'upstream_failed' && n < MAX_UPSTREAM_RETRIES,
    retryDelay: (n) => retryDelayMs(n - 1),
  });
  const error: SearchError | null = search.error ?? (isInitial && !gateOpen ? initialError : null);
  const failing =
    search.failureReason instanceof SearchError && search.failureReason.code === 'upstream_failed' && search.isFetching
      ? search.failureReason
      : null;

  // The limit as last reported, from an answer or a refusal, whichever came last.
  const seen: SeenRate | null = (() => {
    const fromAnswer = search.data?.rate ? { rate: search.data.rate, receivedAt: search.data.receivedAt } : null;
    const err = error ?? failing;
    const fromError = err?.rate ? { rate: err.rate, receivedAt: err.at } : null;
    if (fromAnswer && fromError) return fromError.receivedAt > fromAnswer.receivedAt ? fromError : fromAnswer;
    return fromError ?? fromAnswer ?? (initial.rate ? { rate: initial.rate, receivedAt: mountedAt } : null);
  })();
  const [lastSeen, setLastSeen] = useState<SeenRate | null>(seen);
  useEffect(() => {
    if (seen && (!lastSeen || seen.receivedAt > lastSeen.receivedAt)) setLastSeen(seen);
  }, [seen, lastSeen]);

  const retry = () => {
    if (isInitial && !gateOpen) setGateOpen(true);
    else void search.refetch();
  };

  // 429: search again by itself once, when the service said it would allow one more.
  const autoRetried = useRef(new Set<string>());
  const searchKey = `${lang}\n${exact}\n${offset}\n${q}`;
  const limited = error?.code === 'rate_limited' ? error : null;
  const willRetry = Boolean(limited) && !autoRetried.current.has(searchKey);
  useEffect(() => {
    if (!limited || autoRetried.current.has(searchKey)) return;
    const ms = Math.max(0, limited.at + (limited.retryAfterSeconds ?? 1) * 1000 - Date.now()) + 300;
    const t = setTimeout(() => {
      autoRetried.current.add(searchKey);
      retry();
    }, ms);
    return () => clearTimeout(t);
  }, [limited, searchKey]);

  const recentQuery = useQuery<RecentSearch[]>({
    queryKey: ['recent-searches'],
    queryFn: async () => (await api<{ searches: RecentSearch[] }>('GET', '/api/me/recent-searches')).searches,
    initialData: recent,
    staleTime: 30_000,
  });
  useEffect(() => {
    if (search.data && search.dataUpdatedAt > mountedAt) void client.invalidateQueries({ queryKey: ['recent-searches'] });
  }, [search.data, search.dataUpdatedAt, mountedAt, client]);
  const clear = useMutation({
    mutationFn: () => api('DELETE', '/api/me/recent-searches'),
    onSuccess: () => client.setQueryData(['recent-searches'], []),
  });

  /** Put a search in the address (a new history entry), which runs it; the same search again re-runs it. */
  const go = (text: string, language: string, asTyped = false, start = 0) => {
    const target = searchHref(pathname, text, language, asTyped, start);
    if (text === q && language === lang && asTyped === exact && start === offset) {
      if (text) retry();
      return;
    }
    window.history.pushState(null, '', target);
    // Another page of the same search starts at its top.
    if (start !== offset && text === q) window.scrollTo({ top: 0 });
  };
  /** A link to a search that runs in place (and opens in a new tab like any link). */
  const searchLink = (
    text: string,
    language: string,
    asTyped: boolean,
    label: string,
    { start = 0, rel, className }: { start?: number; rel?: string; className?: string } = {},
  ) => (
    <a
      href={searchHref(pathname, text, language, asTyped, start)}
      rel={rel}
      className={className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        go(text, language, asTyped, start);
      }}
    >
      {label}
    </a>
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const query = normaliseQueryText(draft);
    if (!query) {
      setInvalid('Type what you are looking for, then press Enter.');
      return;
    }
    const p = problem(query, draftLang);
    setInvalid(p);
    if (!p) go(query, draftLang);
  };

  const { active } = useResultKeys({ inputRef, listRef, count: search.data?.results.length ?? 0, resetOn: search.data });

  const data = search.data;
  const tooLong = codePoints(draft) > MAX_QUERY_CHARS;
  return (
    <div className="search-page stack">
      <form role="search" className="search-form" onSubmit={submit} aria-label="Search the web index">
        <div className="search-box">
          <label htmlFor="search-q" className="sr-only">
            Search
          </label>
          <Input
            id="search-q"
            inputRef={inputRef}
            className="input search-input"
            type="search"
            name="q"
            value={draft}
            autoComplete="off"
            spellCheck={false}
            placeholder="Search the index — press / to focus"
            aria-invalid={invalid || tooLong ? true : undefined}
            aria-describedby="search-hint"
            onType={setDraft}
            autoFocus={!q}
          />
          <label htmlFor="search-lang" className="sr-only">
            Language
          </label>
          <Select id="search-lang" className="select search-lang" value={draftLang} onChoose={setDraftLang}>
            {SEARCH_LANGUAGES.map((l) => (
              <option key={l.code} value={l.code}>
                {l.name}
              </option>
            ))}
            {!SEARCH_LANGUAGES.some((l) => l.code === draftLang) && <option value={draftLang}>{draftLang}</option>}
          </Select>
          {/* Never disabled while a search runs: a disabled default button would block Enter in the box. */}
          <Button type="submit" variant="primary" aria-busy={search.isFetching || undefined}>
            {search.isFetching && <span className="spinner" aria-hidden="true" />}Search
          </Button>
        </div>
        <div className="spread">
          <span id="search-hint" className={invalid || tooLong ? 'field-error' : 'field-hint'}>
            {invalid ??
              (tooLong
                ? `At most ${MAX_QUERY_CHARS} characters (${codePoints(draft)} now).`
                : 'Enter searches · site:docs.python.org keeps to one site, -site: leaves one out · / focuses the box · ↑ ↓ or j k move through results')}
          </span>
          <QuotaIndicator seen={lastSeen} />
        </div>
      </form>
      {hasKey && q && (
        <SearchScope
          sites={asked.sites}
          excludeSites={asked.excludeSites}
          everySite={searchLink(asked.query, lang, exact, 'Search every site')}
        />
      )}

      {!hasKey ? (
        <div className="card">
          <EmptyState
            icon="key"
            title="This team has no API key to search with"
            action={
              <Link className="btn btn-primary" href={`/teams/${teamId}/keys`}>
                {canManage ? 'Create a key' : 'See the API keys'}
              </Link>
            }
          >
            {canManage
              ? 'Searches run with the team’s default key. Create one on the API keys page, then come back.'
              : 'Searches run with the team’s default key. Ask an owner or admin of this team to create one.'}
          </EmptyState>
        </div>
      ) : !q ? (
        <>
          <RecentSearches
            searches={recentQuery.data}
            onPick={(s) => go(s.query, s.language)}
            onClear={() => clear.mutate()}
            clearing={clear.isPending}
          />
          {clear.error && <Alert tone="error">Your recent searches could not be cleared. Try again.</Alert>}
          {!recentQuery.data.length && (
            <p className="muted">
              Search the pages this service has indexed. Results favour pages in the language you pick; the address holds your search, so
              you can share or bookmark it.
            </p>
          )}
        </>
      ) : failing ? (
        <SearchFailure error={failing} teamId={teamId} failures={search.failureCount} retrying onRetry={retry} willRetry={false} />
      ) : error ? (
        <SearchFailure
          error={error}
          teamId={teamId}
          failures={search.failureCount}
          retrying={false}
          onRetry={retry}
          willRetry={willRetry}
        />
      ) : !data ? (
        <div className="search-loading" data-testid="search-state" data-state="loading" aria-busy="true" role="status">
          <span className="spinner" aria-hidden="true" /> Searching for “{q}”…
        </div>
      ) : data.indexEmpty ? (
        <div className="card" data-testid="search-state" data-state="index-empty">
          <EmptyState icon="index" title="The search index is empty">
            No pages have been indexed yet, so no search can find anything. An operator adds pages with <code>npm run index -- SOURCE</code>{' '}
            (a WARC file, a folder of HTML or a site to crawl); they are searchable at once.
          </EmptyState>
        </div>
      ) : data.results.length === 0 && data.offset > 0 ? (
        <div className="card" data-testid="search-state" data-state="no-more">
          <EmptyState
            icon="search"
            title={`No more results for “${data.corrected ?? data.query}”`}
            action={searchLink(q, lang, exact, 'Back to the first page', { className: 'btn' })}
          >
            The earlier pages hold every result of this search.
          </EmptyState>
        </div>
      ) : data.results.length === 0 ? (
        <div className="card" data-testid="search-state" data-state="empty">
          <EmptyState
            icon="search"
            title={`No pages match “${data.corrected ?? data.query}”${data.sites.length ? ` on ${data.sites.join(', ')}` : ''}`}
            action={<NoResultsHelp tries={data.tries} link={searchLink} />}
          >
            {noResultsText(data.tries)}
          </EmptyState>
        </div>
      ) : (
        <section className="stack-sm" aria-label="Results" aria-busy={search.isFetching || undefined}>
          <p className="muted results-meta" data-testid="results-meta">
            {data.offset === 0
              ? `Top ${data.results.length} ${data.results.length === 1 ? 'result' : 'results'}`
              : `Results ${data.offset + 1}–${data.offset + data.results.length}`}{' '}
            {/* The words the results are for: the corrected ones when the search corrected them. */}
            for “{data.corrected ?? data.query}”
            {data.cached && (
              <span
                className="badge"
                data-testid="from-cache"
                title="No request reached the search service, so no search of the key's limit was used."
              >
                From cache{data.ageSeconds ? `, ${data.ageSeconds} s old` : ''} · no search used
              </span>
            )}
          </p>
          {data.corrected && (
            <p className="search-corrected" data-testid="corrected">
              Showing results for <strong>{data.corrected}</strong>. Search instead for{' '}
              {searchLink(q, data.language, true, `“${data.query}”`)}.
            </p>
          )}
          <Results
            results={data.results}
            first={data.offset + 1}
            query={data.corrected ?? data.query}
            language={data.language}
            active={active}
            listRef={listRef}
          />
          <Pager
            page={Math.floor(data.offset / RESULTS_PER_PAGE) + 1}
            previous={
              data.offset > 0
                ? searchLink(q, lang, exact, '← Previous', {
                    start: Math.max(0, data.offset - RESULTS_PER_PAGE),
                    rel: 'prev',
                    className: 'btn',
                  })
                : null
            }
            next={data.next ? searchLink(q, lang, exact, 'Next page →', { start: data.next.offset, rel: 'next', className: 'btn' }) : null}
          />
        </section>
      )}
    </div>
  );
}
