import { isStopWord } from '#shared/stop-words.ts';

/**
 * Where a query's words occur in a snippet, as plain segments the page renders as React
 * elements (never as HTML). A word is marked where the snippet has it as a word of its own, in
 * any case, or with a short ending (`task` marks "Tasks", `paquet` "paquets"), never as the start
 * of a longer word (`le` does not mark "lecture"); identifiers split on punctuation
 * (`asyncio.gather` marks both parts). The stop words of the query's language and of English are
 * not marked (`le`, `les`, `the`; decision 0083): the service does not search for them either.
 */
export type Segment = { text: string; hit: boolean };

const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const MAX_TERMS = 24;
/** The longest ending a marked word may have beyond the query's word (a plural, a verb's `-ed`
 * or `-en`), and the shortest word allowed one: shorter words are marked only whole. */
const MAX_ENDING = 2;
const MIN_WITH_ENDING = 3;

/** The distinct words of a query worth marking, longest first (so the longest match wins where two
 * overlap): letters and digits, no one-letter words, no stop words of `language` or English. */
export function queryTerms(query: string, language = 'en'): string[] {
  const terms = new Set<string>();
  for (const m of query.normalize('NFC').matchAll(WORD)) {
    const t = m[0].toLowerCase();
    if ((t.length >= 2 || CJK.test(t)) && !isStopWord(t, language)) terms.add(t);
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);

/** Where the word starting at `i` ends. */
function wordEnd(text: string, i: number): number {
  let end = i;
  while (end < text.length && isWordChar(text[end])) end++;
  return end;
}

/** The query word the snippet's word at `i` (lower-cased text, ending at `end`) is, if any. */
function termAt(lower: string, i: number, end: number, terms: readonly string[]): string | undefined {
  return terms.find((t) => {
    if (!lower.startsWith(t, i)) return false;
    const rest = end - (i + t.length);
    return rest === 0 || (t.length >= MIN_WITH_ENDING && rest <= MAX_ENDING);
  });
}

export function highlight(text: string, query: string, language = 'en'): Segment[] {
  const terms = queryTerms(query, language);
  if (!terms.length || !text) return text ? [{ text, hit: false }] : [];
  const lower = text.toLowerCase();
  // toLowerCase can change a string's length (rare letters); then match nothing rather than misplace marks.
  if (lower.length !== text.length) return [{ text, hit: false }];
  const out: Segment[] = [];
  let plainFrom = 0;
  let i = 0;
  while (i < text.length) {
    const cjk = CJK.test(text[i] as string);
    if (!isWordChar(text[i]) || (!cjk && isWordChar(text[i - 1]))) {
      i++;
      continue;
    }
    // CJK text has no spaces: a term matches anywhere in a run, and marks itself only.
    const end = cjk ? i : wordEnd(text, i);
    const term = cjk ? terms.find((t) => lower.startsWith(t, i)) : termAt(lower, i, end, terms);
    if (!term) {
      // Nothing starts at this word: go on after it (inside CJK runs, at the next character).
      i = cjk ? i + 1 : end;
      continue;
    }
    const stop = cjk ? i + term.length : end;
    if (i > plainFrom) out.push({ text: text.slice(plainFrom, i), hit: false });
    out.push({ text: text.slice(i, stop), hit: true });
    i = plainFrom = stop;
  }
  if (plainFrom < text.length) out.push({ text: text.slice(plainFrom), hit: false });
  return out;
}

/**
 * A readable form of a result's address: host without `www.`, then the path's segments joined
 * with › and decoded, without `index.html`; long middles shortened.
 */
export function displayUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const parts = u.pathname.split('/').filter(Boolean).map(decode);
  if (parts.at(-1) === 'index.html') parts.pop();
  const shown = parts.length > 4 ? [...parts.slice(0, 2), '…', ...parts.slice(-2)] : parts;
  const host = u.hostname.replace(/^www\./, '') + (u.port ? `:${u.port}` : '');
  return [host, ...shown].join(' › ');
}
