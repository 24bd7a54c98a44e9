import type { ReactNode } from 'react';

/**
 * The pages of a search's results: the previous one when there is one, and the next one when the
 * service says another follows. Links, so that they open in a new tab like any link.
 */
export function Pager({ page, previous, next }: { page: number; previous: ReactNode | null; next: ReactNode | null }) {
  if (!previous && !next) return null;
  return (
    <nav className="search-pager" aria-label="Pages of results" data-testid="pager">
      <span className="search-pager-side">{previous}</span>
      <span className="muted">Page {page}</span>
      <span className="search-pager-side search-pager-next">{next}</span>
    </nav>
  );
}
