import { ara, cat, ces, dan, deu, ell, fas, fra, hrv, ind, ita, nld, nob, pol, por, ron, rus, spa, swe, tur, vie } from 'stopword';

/**
 * Stop words: the words of a language too common to tell one page from another (articles,
 * pronouns, prepositions, forms of "to be"), which a query does not require and a snippet does
 * not mark (decision 0083). Shared because the service reads queries with them and the portal
 * highlights snippets with them.
 *
 * English keeps the project's own short list (decision 0012): longer English lists hold `where`,
 * `between`, `over`, `any`, `all`, which are SQL and Python words people search for. The other
 * languages of the corpus's manuals take the `stopword` package's list (Portuguese its Snowball
 * list, `por`; `porBr` also lists content words such as `área` and `dia`). Chinese, Japanese and
 * Korean have none: the index reads them as character pairs, not words (tokenize.ts).
 */
const ENGLISH = 'a an and are as at be by for from in into is it of on or that the this to with was were will not no its than then';

const LISTS: Record<string, readonly string[]> = {
  ar: ara,
  ca: cat,
  cs: ces,
  da: dan,
  de: deu,
  el: ell,
  es: spa,
  fa: fas,
  fr: fra,
  hr: hrv,
  id: ind,
  it: ita,
  nb: nob,
  nl: nld,
  pl: pol,
  pt: por,
  ro: ron,
  ru: rus,
  sv: swe,
  tr: tur,
  vi: vie,
};

/** The words as queries are read: NFKC, lower case (tokenize.ts's prepare), one word each. The
 * lists' multi-word Vietnamese entries and elided forms such as Catalan `d'un` never match one
 * word, and Arabic's lone tatweel is no word: they are left out. */
const prepared = (list: readonly string[]) =>
  new Set(list.map((w) => w.normalize('NFKC').toLowerCase().trim()).filter((w) => /^[\p{Ll}\p{Lo}\p{M}]+$/u.test(w)));

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(ENGLISH.split(' '));
const sets = new Map<string, ReadonlySet<string>>([['en', ENGLISH_STOP_WORDS]]);

/** The stop words of a language (two letters), or none. */
export function stopWordsOf(language: string): ReadonlySet<string> {
  let set = sets.get(language);
  if (!set) {
    const list = LISTS[language];
    if (!list) return new Set();
    sets.set(language, (set = prepared(list)));
  }
  return set;
}

/** The languages with a list of their own. */
export const STOP_WORD_LANGUAGES: readonly string[] = ['en', ...Object.keys(LISTS)];

/**
 * Whether a word (lower case) is a stop word of a query in `language`: of that language or of
 * English, since the manuals of every language are full of English names and commands, and an
 * English article or preposition is no more telling in a French query than in an English one.
 */
export function isStopWord(word: string, language = 'en'): boolean {
  return ENGLISH_STOP_WORDS.has(word) || (language !== 'en' && stopWordsOf(language).has(word));
}

/**
 * A word without the elided article or pronoun it starts with (`l'interface` → `interface`,
 * `dell'utente` → `utente`, `qu'un` → `un`): in French, Italian and Catalan an apostrophe joins a
 * function word to the next, and the words the manuals hold are the ones after it. Only a stop word
 * of the query's language is cut off, so `aujourd'hui` and English `don't` stay as written.
 */
export function withoutElision(word: string, language: string): string {
  if (language === 'en') return word;
  const m = /^([\p{L}]+)['’](?=[\p{L}\p{N}])/u.exec(word);
  return m && stopWordsOf(language).has(m[1] as string) ? word.slice(m[0].length) : word;
}
