import { readSiteWords } from '#portal/search/operators.ts';
import { normaliseQueryText } from '#portal/search/types.ts';
import { searchLanguage } from '#shared/protocol/search.ts';
import type { PageSearch } from './search-api.ts';

/**
 * The search page's address is its state (share it; back and forward work): `q` the box's text,
 * `site:` words included; `lang`; `exact=1` for the words as typed; `start` how many results
 * come before the page shown.
 */
export type AddressSearch = { text: string; search: PageSearch };

/** The search an address asks for; `get` reads one of its parameters. */
export function readAddress(get: (name: string) => string | null | undefined): AddressSearch {
  const text = normaliseQueryText(get('q') ?? '');
  const start = get('start') ?? '';
  const box = readSiteWords(text);
  return {
    text,
    search: {
      ...box,
      language: searchLanguage(get('lang')),
      exact: get('exact') === '1',
      // Not a count: the first page (a number past the deepest page is the request rules' to refuse).
      offset: /^\d{1,6}$/.test(start) ? Number(start) : 0,
    },
  };
}

/** The address of a search on this page. */
export function searchHref(pathname: string, text: string, language: string, exact: boolean, offset = 0): string {
  const next = new URLSearchParams();
  if (text) next.set('q', text);
  next.set('lang', language);
  if (exact) next.set('exact', '1');
  if (offset > 0) next.set('start', String(offset));
  return `${pathname}?${next.toString()}`;
}
