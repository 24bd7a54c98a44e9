'use client';
import type { RecentSearch } from '#portal/data/portal-data.ts';
import { Button } from '#app/_ui/button.tsx';

/** The user's recent searches, each one a search again; the user can clear them. */
export function RecentSearches({
  searches,
  onPick,
  onClear,
  clearing,
}: {
  searches: RecentSearch[];
  onPick: (s: RecentSearch) => void;
  onClear: () => void;
  clearing: boolean;
}) {
  if (!searches.length) return null;
  return (
    <section className="card card-body stack-sm" aria-labelledby="recent-title">
      <div className="spread">
        <h3 id="recent-title">Your recent searches</h3>
        <Button size="sm" variant="ghost" onClick={onClear} busy={clearing}>
          Clear recent searches
        </Button>
      </div>
      <ul className="recent" aria-label="Recent searches">
        {searches.map((s) => (
          <li key={`${s.language}\n${s.query}`}>
            <button type="button" className="recent-item" onClick={() => onPick(s)}>
              <span>{s.query}</span>
              {s.language !== 'en' && <span className="badge">{s.language}</span>}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
