/**
 * A search's site filters (`sites`, `excludeSites`; docs/api.md): which hosts' pages may be
 * results. The hosts come validated and in normal form (lib/shared/protocol/site-hosts.ts).
 */

/** Whether `host` is `site` or a host under it: `python.org` covers `docs.python.org`, not `notpython.org`. */
export const hostCovers = (site: string, host: string): boolean => host === site || host.endsWith(`.${site}`);

/** The host of an absolute http(s) address, in lower case, without its port; null for anything else. */
export function hostOf(url: string): string | null {
  const m = /^https?:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]+)/i.exec(url);
  return m ? (m[1] as string).toLowerCase() : null;
}

/** The share of `urls` on each host (an address without one counts for none). */
export function hostShares(urls: readonly string[]): Map<string, number> {
  const out = hostCounts(urls);
  for (const [host, n] of out) out.set(host, n / urls.length);
  return out;
}

/** How many of `urls` are on each host. */
export const hostCounts = (urls: readonly string[]): Map<string, number> => counted(urls.map(hostOf));

/** How many times each host is in `hosts` (null: none). */
function counted(hosts: readonly (string | null)[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const host of hosts) if (host !== null) out.set(host, (out.get(host) ?? 0) + 1);
  return out;
}

/**
 * How much a list of `sample` pages keeps coming back to a site it has `pages` pages of, from 0
 * (none) to 1 (all of them), by the logarithm: a site with a few pages among a query's best stands
 * apart from one with a single page, as a site about what the query asks does from a page that
 * happens to hold its words (decision 0123).
 */
export const siteFocus = (pages: number, sample: number): number => Math.min(1, Math.log1p(pages) / Math.log1p(sample));

/**
 * siteFocus() for a query's sample of best pages, by host (decision 0123): `counts`, how many of
 * the `sample` pages each host has, and a candidate's `pages`, the same with itself counted. Among
 * a million pages most of a query's best are each alone on its site, the noise of a web of many
 * sites, not a rival to the one the rest come back to. So a site holding far more of the sample
 * than chance would give it (a surprise of `surprise` or more, as surprisingHost() measures it,
 * `pagesOf` and `total` as there) is measured against the sample's pages on sites that recur in
 * it, not against all of them (decision 0171). On a small web a manual is much of what there is,
 * chance puts many of its pages among the best, and its focus is the one siteFocus() gives.
 */
export function sampleFocus(
  counts: ReadonlyMap<string, number>,
  sample: number,
  pagesOf: (host: string) => number,
  total: number,
  surprise: number,
): (host: string, pages: number) => number {
  let recurring = 0;
  for (const n of counts.values()) if (n > 1) recurring += n;
  const measure = new Map<string, number>();
  return (host, pages) => {
    let against = measure.get(host);
    if (against === undefined) {
      const beyondChance = surpriseOf(counts.get(host) ?? 0, (sample * pagesOf(host)) / total) >= surprise;
      against = beyondChance && recurring > 0 ? recurring : sample;
      measure.set(host, against);
    }
    return siteFocus(pages, against);
  };
}

/** How far holding `c` of a set is beyond the `e` chance would give, in nats: c ln(c/e) − c + e,
 * Chernoff's bound for a Poisson count (c or more comes by chance at most e^−surprise of the
 * time); 0 for c at or below e, as holding fewer than chance would is no sign of holding more. */
export const surpriseOf = (c: number, e: number): number => (c > e && e > 0 ? c * Math.log(c / e) - c + e : 0);

/** The hosts `atLeast` of `hosts` are on (null: a page of none), the `most` with most of them first
 * (by name among equals). */
export function focusedHosts(hosts: readonly (string | null)[], atLeast: number, most: number): string[] {
  return [...counted(hosts)]
    .filter(([, n]) => n >= atLeast)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, most)
    .map(([host]) => host);
}

/**
 * The host holding far more of a set of pages than chance would put on it, or null when none does.
 * `hosts`: the set's pages' hosts (null: none); `pagesOf`: how many pages of the index a host has;
 * `total`: how many the index has. A host of n pages holds by chance about e = |set| × n / total of
 * the set; holding c of them (`atLeast` or more), its surprise is surpriseOf(c, e). The most
 * surprising host of `surprise` or more, the first by name among equals.
 */
export function surprisingHost(
  hosts: readonly (string | null)[],
  pagesOf: (host: string) => number,
  total: number,
  atLeast: number,
  surprise: number,
): string | null {
  let best: string | null = null;
  let most = surprise;
  for (const [host, c] of counted(hosts)) {
    if (c < atLeast) continue;
    const s = surpriseOf(c, (hosts.length * pagesOf(host)) / total);
    if (s > most || (s === most && (best === null || host < best))) [best, most] = [host, s];
  }
  return best;
}

/**
 * hostShares() of those of `urls` whose host is there more than once (of all of them when no host
 * is): which sites a list of pages keeps coming back to. A host of one page among many is no sign
 * of what the list is about, and a web of many sites puts many such pages into any list.
 */
export function recurringHostShares(urls: readonly string[]): Map<string, number> {
  const counts = hostCounts(urls);
  const recurring = urls.filter((url) => (counts.get(hostOf(url) ?? '') ?? 0) > 1);
  return hostShares(recurring.length ? recurring : urls);
}

export type SiteFilters = { sites?: readonly string[]; excludeSites?: readonly string[] };

/** Whether a request filters by site at all. */
export const filtersSites = (f: SiteFilters): boolean => Boolean(f.sites?.length || f.excludeSites?.length);

/**
 * Whether a host's pages may be results: covered by one of `sites` when there are any, and by
 * none of `excludeSites` (an exclusion wins, so `sites: ["python.org"]` with `excludeSites:
 * ["docs.python.org"]` is python.org without its documentation).
 */
export function siteAllows(f: SiteFilters, host: string): boolean {
  if (f.sites?.length && !f.sites.some((s) => hostCovers(s, host))) return false;
  return !f.excludeSites?.some((s) => hostCovers(s, host));
}

/** The filters as a cache key: the same key for the same filters. */
export const siteFiltersKey = (f: SiteFilters): string =>
  `${[...(f.sites ?? [])].sort().join(' ')}\n${[...(f.excludeSites ?? [])].sort().join(' ')}`;
