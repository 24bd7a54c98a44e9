import { ENGLISH_STOP_WORDS, isStopWord, stopWordsOf, withoutElision } from '#shared/stop-words.ts';

/**
 * Words as the index stores them and as queries are read, one function for both sides.
 *
 * - Text is NFKC-normalised and lower-cased; SQLite's tokenizer then removes diacritics and stems
 *   English words (porter), the same way for documents and queries.
 * - Identifiers are kept as developers type them: `asyncio.gather`, `pg_stat_activity`,
 *   `object.__rmul__`, `kde.org`, `csh.cshrc`. Each is indexed as its parts (so `gather` finds it)
 *   and as the joined forms of every run of two to five adjacent parts (`asynciogather0`,
 *   `pgstatactivity0`, `statactivity0`; the trailing digit keeps the stemmer off them), so a query
 *   for the identifier, or for a trailing part of a dotted name, matches it as one precise term.
 * - Chinese, Japanese and Korean, written without spaces, are indexed as overlapping character
 *   pairs (bigrams), the usual way to search them without a dictionary.
 */

/** The scripts read as character pairs, as a regular expression's character class. */
export const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]';
const CJK_RUN = new RegExp(`${CJK_CLASS}+`, 'gu');
const WORD = /[\p{L}\p{N}\p{M}]+(?:[._:\-/'’]+[\p{L}\p{N}\p{M}]+)*/gu;
const JOINERS = /[._:\-/'’]+/u;
/** Whether a word holds a joiner (`[._:\-/'’]`), by its character codes: most words hold none,
 * and then need no split (a regular expression's call cost more than the loop). */
export function hasJoiner(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === 0x2e || c === 0x5f || c === 0x3a || c === 0x2d || c === 0x2f || c === 0x27 || c === 0x2019) return true;
  }
  return false;
}
/** A word whose first joiner is a dot or `::` (`os.path`, `std::vector`, `object.__rmul__`; not
 * `pg_stat`, `drag-and-drop`). */
const DOTTED = /^[^._:\-/'’]+(?:\.|::)_*[^._:\-/'’]/u;
const MAX_COMPOUND_RUN = 5;
/** Joined forms end in a digit, which keeps the porter stemmer off them: an identifier matches as
 * written (`pg_sequences` is not `pg_sequence`), while ordinary words are still stemmed. */
const joinedToken = (parts: readonly string[]) => `${parts.join('')}0`;
const MAX_TOKEN = 64;

function cjkBigrams(run: string): string {
  const chars = [...run];
  if (chars.length === 1) return ` ${run} `;
  let out = ' ';
  for (let i = 0; i + 1 < chars.length; i++) out += `${chars[i]}${chars[i + 1]} `;
  return out;
}

function prepare(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(CJK_RUN, cjkBigrams);
}

/** Joined forms of every run of 2..MAX_COMPOUND_RUN adjacent parts. */
function compounds(parts: string[], out: string[]): void {
  for (let len = 2; len <= Math.min(MAX_COMPOUND_RUN, parts.length); len++) {
    for (let i = 0; i + len <= parts.length; i++) {
      const joined = joinedToken(parts.slice(i, i + len));
      if (joined.length <= MAX_TOKEN) out.push(joined);
    }
  }
}

/** The token stream of a text, for the postings: each word's parts, and an identifier's joined forms. */
export function indexTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of prepare(text).matchAll(WORD)) {
    const word = m[0];
    // Most words are one part.
    if (!hasJoiner(word)) {
      if (word.length <= MAX_TOKEN) out.push(word);
      continue;
    }
    const parts = word.split(JOINERS).filter(Boolean);
    for (const p of parts) if (p.length <= MAX_TOKEN) out.push(p);
    if (parts.length > 1) compounds(parts, out);
  }
  return out;
}

/** The token stream of a text, as a space-separated string for the full-text index. */
export function indexText(text: string): string {
  return indexTokens(text).join(' ');
}

/** The plain words of a text (no compounds), for snippets and feature checks. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of prepare(text).matchAll(WORD)) {
    const word = m[0];
    if (!hasJoiner(word)) out.push(word);
    else for (const p of word.split(JOINERS)) if (p) out.push(p);
  }
  return out;
}

/** words(), one at a time: a caller that takes the first few of a long text stops there. */
export function* eachWord(text: string): Generator<string> {
  for (const m of prepare(text).matchAll(WORD)) {
    const word = m[0];
    if (!hasJoiner(word)) yield word;
    else for (const p of word.split(JOINERS)) if (p) yield p;
  }
}

/** The first `n` of words(). */
export function firstWords(text: string, n: number): string[] {
  const out: string[] = [];
  if (n <= 0) return out;
  for (const w of eachWord(text)) if (out.push(w) >= n) break;
  return out;
}

/** One thing the searcher typed: a word, or an identifier made of several parts. */
export type Concept = {
  /** The parts, in order (`asyncio.gather` -> asyncio, gather). */
  parts: string[];
  /** The joined form for identifiers of 2..5 parts, else null. */
  compound: string | null;
  /** Very common words that should not be required or counted. */
  stop: boolean;
  /** What a dotted name is a name in, its first part (`ftplib` of `ftplib.FTP.mlsd`, `std` of
   * `std::vector`), else null: the module a manual's page about it is named after (decision 0123). */
  namespace: string | null;
};

/** English stop words, which the indexer also leaves out of what it keeps near index anchors. */
export const STOPWORDS = ENGLISH_STOP_WORDS;

/** A word that is a stop word, or a word of several parts that are all stop words of a language
 * other than English (`est-ce`); English keeps `is_not` and `and/or` as typed. */
function isStopConcept(parts: readonly string[], language: string): boolean {
  if (parts.length === 1) return isStopWord(parts[0] as string, language);
  if (language === 'en') return false;
  const own = stopWordsOf(language);
  return parts.every((p) => own.has(p));
}

export type ParsedQuery = {
  concepts: Concept[];
  /** Joined forms of adjacent words (`asyncio gather` -> asynciogather, `os posix_fallocate` ->
   * osposixfallocate): people often type a dotted name with a space. */
  joins: string[];
};

/** A query's concepts; `language` (two letters) adds its stop words and elisions to English's
 * (decision 0083). */
export function parseQuery(query: string, language = 'en'): ParsedQuery {
  const concepts: Concept[] = [];
  const seen = new Set<string>();
  for (const m of prepare(query).matchAll(WORD)) {
    const word = withoutElision(m[0], language);
    const parts = word.split(JOINERS).filter((p) => p && p.length <= MAX_TOKEN);
    if (!parts.length) continue;
    const key = parts.join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    const compound = parts.length > 1 && parts.length <= MAX_COMPOUND_RUN ? joinedToken(parts) : null;
    concepts.push({
      parts,
      compound: compound && compound.length <= MAX_TOKEN ? compound : null,
      stop: isStopConcept(parts, language),
      namespace: parts.length > 1 && DOTTED.test(word) ? (parts[0] as string) : null,
    });
    if (concepts.length >= 32) break;
  }
  const joins: string[] = [];
  for (let i = 0; i + 1 < concepts.length; i++) {
    const a = concepts[i] as Concept;
    const b = concepts[i + 1] as Concept;
    if (a.stop || b.stop || a.parts.length + b.parts.length > MAX_COMPOUND_RUN) continue;
    const joined = joinedToken([...a.parts, ...b.parts]);
    if (joined.length <= MAX_TOKEN) joins.push(joined);
    // Two words people split that the text writes as one (`back up` -> `backup`, `data base`).
    if (a.parts.length === 1 && b.parts.length === 1 && joined.length <= MAX_TOKEN) joins.push(joined.slice(0, -1));
  }
  return { concepts, joins };
}
