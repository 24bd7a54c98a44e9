import { createStemmer } from 'multilingual-stemmer';

/**
 * Snowball stemmers (snowballstem.org, through the `multilingual-stemmer` package, which ships them
 * compiled to WebAssembly: nothing is downloaded) for the languages of the corpus's manuals other
 * than English (decision 0083). The index stems every language with English's porter, which
 * leaves most inflections of other languages apart (`настроить` / `настроен`, `compartir` /
 * `compartidos`); a query's word is stemmed in its request's language to find its other forms.
 *
 * Croatian takes Snowball's Serbian stemmer (the two share their inflections; Snowball has no
 * Croatian one) and Norwegian Bokmål its Norwegian one. Chinese, Japanese and Korean are read as
 * character pairs, and Vietnamese does not inflect: none.
 */
const SNOWBALL: Record<string, string> = {
  ar: 'ar',
  ca: 'ca',
  cs: 'cs',
  da: 'da',
  de: 'de',
  el: 'el',
  es: 'es',
  fa: 'fa',
  fr: 'fr',
  hr: 'sr',
  id: 'id',
  it: 'it',
  nb: 'no',
  nl: 'nl',
  pl: 'pl',
  pt: 'pt',
  ro: 'ro',
  ru: 'ru',
  sv: 'sv',
  tr: 'tr',
};

export type Stemmer = (word: string) => string;

const made = new Map<string, Stemmer>();

/** The stemmer of a language (two letters, lower case), or null when it has none here (English's
 * is the index's own). Words go in lower case, as queries are read. */
export function stemmerOf(language: string): Stemmer | null {
  const code = SNOWBALL[language];
  if (!code) return null;
  let stem = made.get(code);
  if (!stem) made.set(code, (stem = createStemmer(code as Parameters<typeof createStemmer>[0])));
  return stem;
}

/** A word without the diacritics the index's tokenizer removes (unicode61 `remove_diacritics 2`
 * folds Latin letters only: `configuré` → `configure`, while `й` and Greek accents stay). */
export function foldLatin(word: string): string {
  return word.replace(/[\u00C0-\u024F\u1E00-\u1EFF]/g, (ch) => ch.normalize('NFD').replace(/\p{M}/gu, ''));
}
