import type { Metadata } from 'next';
import { asDomainError } from '#portal/errors.ts';
import { recentSearches, searchForMember } from '#portal/search/search.ts';
import { isSearchFailureCode, type SearchFailureBody } from '#portal/search/types.ts';
import { listKeys } from '#portal/keys/vault.ts';
import { canManage, requireTeam } from '#app/_lib/team-page.ts';
import { readAddress } from './address.ts';
import { searchBody } from './search-api.ts';
import { SearchClient, type InitialSearch } from './search-client.tsx';
import './search.css';

export const metadata: Metadata = { title: 'Search' };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

/** A search failure the page shows in place (a refusal of the key, a limit), or null. */
function failureOf(err: unknown): (SearchFailureBody & { status: number }) | null {
  const e = asDomainError(err);
  if (!e || !isSearchFailureCode(e.code)) return null;
  return { ...(e.body() as SearchFailureBody), status: e.status };
}

/**
 * The hosted search page. A shared link (?q=...&lang=...&start=..., address.ts) is searched here,
 * on the server, so its first results arrive with the page; later searches go through POST
 * /api/teams/:teamId/search.
 */
export default async function SearchPage({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { teamId } = await params;
  const sp = await searchParams;
  const { portal, actor, team } = await requireTeam(teamId);
  const { text, search } = readAddress((name) => first(sp[name]));
  const keys = await listKeys(portal.vault, actor, team.id);
  const defaultKey = keys.find((k) => k.isDefault && !k.revokedAt);
  const hasKey = Boolean(defaultKey);
  // The key's limit as the portal last saw it, so a reload keeps showing what is left.
  const rate = defaultKey ? portal.search.rateNow(defaultKey.id) : null;
  const { language, exact, offset } = search;
  const initial: InitialSearch = { text, language, exact, offset, answer: null, failure: null, rate };
  if (text && hasKey) {
    try {
      initial.answer = await searchForMember(portal, actor, team.id, searchBody(search), { record: true });
    } catch (err) {
      const failure = failureOf(err);
      if (!failure) throw err;
      initial.failure = failure;
    }
  }
  const recent = await recentSearches(portal.data, actor);
  return (
    <section className="stack" aria-labelledby="search-title">
      <div className="page-head">
        <div>
          <h2 id="search-title">Search</h2>
          <p>
            Search the web index with this team’s default API key. The key stays on the server; repeated searches come from the portal’s
            cache and use none of its limit.
          </p>
        </div>
      </div>
      <SearchClient teamId={team.id} hasKey={hasKey} canManage={canManage(team)} initial={initial} recent={recent} />
    </section>
  );
}
