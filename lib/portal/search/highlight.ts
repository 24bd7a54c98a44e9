/**
 * Where a query's terms occur in a snippet, as plain segments the page renders as React
 * elements (never as HTML). A term matches at the start of a word, in any case, so `task`
 * marks "Tasks"; identifiers split on punctuation (`asyncio.gather` marks both parts).
 */
export type Segment = { text: string; hit: boolean };

const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const MAX_TERMS = 24;

/** The distinct terms of a query, longest first (so the longest match wins where two overlap). */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const m of query.normalize('NFC').matchAll(WORD)) {
    const t = m[0].toLowerCase();
    if (t.length >= 2 || CJK.test(t)) terms.add(t);
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);

export function highlight(text: string, query: string): Segment[] {
  const terms = queryTerms(query);
  if (!terms.length || !text) return text ? [{ text, hit: false }] : [];
  const lower = text.toLowerCase();
  // toLowerCase can change a string's length (rare letters); then match nothing rather than misplace marks.
  if (lower.length !== text.length) return [{ text, hit: false }];
  const out: Segment[] = [];
  let plainFrom = 0;
  let i = 0;
  while (i < text.length) {
    const cjk = CJK.test(text[i] as string);
    const atWordStart = cjk || !isWordChar(text[i - 1]);
    const term = atWordStart && isWordChar(text[i]) ? terms.find((t) => lower.startsWith(t, i)) : undefined;
    if (!term) {
      i++;
      continue;
    }
    let end = i + term.length;
    // Mark the rest of the word too ("task" marks "tasks"), except inside CJK text.
    if (!cjk) while (end < text.length && isWordChar(text[end])) end++;
    if (i > plainFrom) out.push({ text: text.slice(plainFrom, i), hit: false });
    out.push({ text: text.slice(i, end), hit: true });
    i = plainFrom = end;
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
