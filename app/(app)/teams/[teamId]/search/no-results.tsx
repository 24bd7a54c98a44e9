import type { ReactNode } from 'react';

/** The address of a search on this page (`exact`: the words as typed, no correction of typing mistakes). */
export function searchHref(pathname: string, query: string, language: string, exact: boolean): string {
  const next = new URLSearchParams();
  if (query) next.set('q', query);
  next.set('lang', language);
  if (exact) next.set('exact', '1');
  return `${pathname}?${next.toString()}`;
}

type SearchLink = (query: string, language: string, exact: boolean, text: string) => ReactNode;

/**
 * What to try when nothing matched, as searches to run with one click: the spelling corrected when
 * the words were searched as typed, fewer words (the query without its last word, and its longest
 * word alone), and English when another language was asked.
 */
export function NoResultsHelp({ query, language, exact, link }: { query: string; language: string; exact: boolean; link: SearchLink }) {
  const words = query.split(' ').filter(Boolean);
  const shorter = words.length > 1 ? words.slice(0, -1).join(' ') : null;
  const longest = words.length > 2 ? [...words].sort((a, b) => b.length - a.length)[0]! : null;
  return (
    <ul className="search-tries" aria-label="Searches to try">
      {exact && <li>with typing mistakes corrected: {link(query, language, false, `“${query}”, corrected`)}</li>}
      {shorter && <li>fewer words: {link(shorter, language, false, `“${shorter}”`)}</li>}
      {longest && longest !== shorter && <li>one word: {link(longest, language, false, `“${longest}”`)}</li>}
      {language !== 'en' && <li>pages in English: {link(query, 'en', false, `“${query}” in English`)}</li>}
      <li>more general words, or the name a manual would use for the thing</li>
    </ul>
  );
}
