import type { ReactNode } from 'react';
import { writeSiteWords } from '#portal/search/operators.ts';
import type { SearchTry, TryReason } from '#portal/search/types.ts';

/** A link to a search: the box's text (`site:` words included), its language, whether as typed, the link's words. */
type SearchLink = (text: string, language: string, exact: boolean, label: string) => ReactNode;

/** What each kind of try is called, and the words of its link. */
const SAYS: Record<TryReason, { kind: string; label: (t: SearchTry) => string }> = {
  corrected: { kind: 'with typing mistakes corrected', label: (t) => `“${t.query}”, corrected` },
  'fewer-words': { kind: 'fewer words', label: (t) => `“${t.query}”` },
  'one-word': { kind: 'one word', label: (t) => `“${t.query}”` },
  english: { kind: 'pages in English', label: (t) => `“${t.query}” in English` },
  'every-site': { kind: 'every site', label: (t) => `“${t.query}” on every site` },
};

/** What the page says above the tries, or, when there are none, what to try in words alone. */
export function noResultsText(tries: readonly SearchTry[]): string {
  return tries.length
    ? 'No page holds enough of these words. Check the spelling, or try:'
    : 'No page holds enough of these words. Check the spelling, or try more general words, or the name a manual would use for the thing.';
}

/**
 * The searches to try after a search that found nothing, as the service checked them against its
 * index (docs/api.md, `tries`): each a search to run with one click, none made up here. Nothing
 * when the service offers none (noResultsText then says what to try).
 */
export function NoResultsHelp({ tries, link }: { tries: readonly SearchTry[]; link: SearchLink }) {
  if (!tries.length) return null;
  return (
    <ul className="search-tries" aria-label="Searches to try">
      {tries.map((t) => (
        <li key={`${t.why}\n${t.language}\n${t.query}`}>
          {SAYS[t.why].kind}: {link(writeSiteWords(t), t.language, false, SAYS[t.why].label(t))}
        </li>
      ))}
      <li>more general words, or the name a manual would use for the thing</li>
    </ul>
  );
}
