import type { ReactNode } from 'react';
import { writeSiteWords } from '#portal/search/operators.ts';

/** A link to a search: the box's text (`site:` words included), its language, whether as typed, the link's words. */
type SearchLink = (text: string, language: string, exact: boolean, label: string) => ReactNode;

/**
 * What to try when nothing matched, as searches to run with one click: the spelling corrected when
 * the words were searched as typed, fewer words (the query without its last word, and its longest
 * word alone), English when another language was asked, and every site when the search kept to
 * some. Each keeps the search's sites but the last.
 */
export function NoResultsHelp({
  query,
  language,
  exact,
  sites,
  excludeSites,
  link,
}: {
  query: string;
  language: string;
  exact: boolean;
  sites: string[];
  excludeSites: string[];
  link: SearchLink;
}) {
  const words = query.split(' ').filter(Boolean);
  const shorter = words.length > 1 ? words.slice(0, -1).join(' ') : null;
  const longest = words.length > 2 ? [...words].sort((a, b) => b.length - a.length)[0]! : null;
  const on = (q: string) => writeSiteWords({ query: q, sites, excludeSites });
  const filtered = sites.length + excludeSites.length > 0;
  return (
    <ul className="search-tries" aria-label="Searches to try">
      {exact && <li>with typing mistakes corrected: {link(on(query), language, false, `“${query}”, corrected`)}</li>}
      {shorter && <li>fewer words: {link(on(shorter), language, false, `“${shorter}”`)}</li>}
      {longest && longest !== shorter && <li>one word: {link(on(longest), language, false, `“${longest}”`)}</li>}
      {language !== 'en' && <li>pages in English: {link(on(query), 'en', false, `“${query}” in English`)}</li>}
      {filtered && <li>every site: {link(query, language, false, `“${query}” on every site`)}</li>}
      <li>more general words, or the name a manual would use for the thing</li>
    </ul>
  );
}
