import type { ReactNode } from 'react';

/**
 * Which sites a search keeps to, in words, with the same search on every site one click away:
 * shown whenever the box's `site:` or `-site:` words filter the results, so that a search that
 * finds little says why.
 */
export function SearchScope({ sites, excludeSites, everySite }: { sites: string[]; excludeSites: string[]; everySite: ReactNode }) {
  if (!sites.length && !excludeSites.length) return null;
  const hosts = (list: string[]) =>
    list.map((h, i) => (
      <span key={h}>
        {i > 0 && (i === list.length - 1 ? ' or ' : ', ')}
        <strong>{h}</strong>
      </span>
    ));
  return (
    <p className="search-scope muted" data-testid="search-scope">
      {sites.length > 0 && <>Only pages on {hosts(sites)} and the sites under them</>}
      {sites.length > 0 && excludeSites.length > 0 && ', '}
      {excludeSites.length > 0 && (
        <>
          {sites.length ? 'none' : 'No pages'} on {hosts(excludeSites)}
        </>
      )}
      . {everySite}
    </p>
  );
}
