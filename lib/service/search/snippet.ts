import type { Concept } from './tokenize.ts';

/**
 * A query-dependent snippet: the passage of the page's main text that holds the most of the
 * query's concepts (identifiers matched whole count double), cut to about `max` characters around
 * the first match, in plain text. Falls back to the meta description, then to the opening text.
 */
export const SNIPPET_CHARS = 240;
/** How much of a page's text the snippet is chosen from: the opening 12,000 characters (decisions
 * 0015 and 0017). */
export const SNIPPET_SCAN = 12_000;

const stem = (t: string) => (t.length > 4 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t);

function blockScore(block: string, concepts: readonly Concept[], joins: readonly string[][]): { score: number; at: number } {
  const lower = block.toLowerCase();
  let score = 0;
  let at = -1;
  for (const parts of joins) {
    const i = findIdentifier(lower, parts);
    if (i >= 0) {
      score += 2;
      if (at < 0 || i < at) at = i;
    }
  }
  for (const c of concepts) {
    if (c.stop) continue;
    const whole = c.parts.length > 1 ? findIdentifier(lower, c.parts) : -1;
    if (whole >= 0) {
      score += 2;
      if (at < 0 || whole < at) at = whole;
      continue;
    }
    let found = true;
    for (const p of c.parts) {
      const i = findWord(lower, stem(p));
      if (i < 0) {
        found = false;
        break;
      }
      if (at < 0 || i < at) at = i;
    }
    if (found) score += 1;
  }
  return { score, at };
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Whether the character before position i of a lower-cased text ends a word (ASCII without the regex). */
function startsWord(text: string, i: number): boolean {
  if (i === 0) return true;
  const c = text.charCodeAt(i - 1);
  if (c < 128) return !((c >= 97 && c <= 122) || (c >= 48 && c <= 57));
  return !LETTER_OR_DIGIT.test(text[i - 1] as string);
}

/** Letters a word may have beyond a query's word and still be it (a plural, `-ed`, `-en`). */
const MAX_ENDING = 2;
/** A query word this long may also be found as the start of a longer word (`configure` in
 * `configuration`, which the index's stemmer conflates); a shorter one only as itself (`le` is
 * not `lecture`, `ip` not `iptables`). */
const MIN_PREFIX = 4;

/** Whether the word starting at `i` of a lower-cased text ends within `max` more characters. */
function endsWithin(text: string, i: number, max: number): boolean {
  for (let j = i; j <= i + max; j++) if (j >= text.length || startsWord(text, j + 1)) return true;
  return false;
}

/**
 * Where `word` stands in a lower-cased text as a word of its own, or with a short ending; failing
 * that, for a word of MIN_PREFIX letters or more, where it starts a longer word; else -1.
 */
function findWord(text: string, word: string): number {
  let longer = -1;
  for (let from = 0; ;) {
    const i = text.indexOf(word, from);
    if (i < 0) return word.length >= MIN_PREFIX ? longer : -1;
    if (startsWord(text, i)) {
      if (endsWithin(text, i + word.length, MAX_ENDING)) return i;
      if (longer < 0) longer = i;
    }
    from = i + 1;
  }
}

const identifierPatterns = new Map<string, RegExp>();

/** An identifier written with any separators between its parts (`asyncio.gather`, `pg_stat`). */
function findIdentifier(text: string, parts: readonly string[]): number {
  const first = findWord(text, parts[0] as string);
  if (first < 0) return -1;
  const key = parts.join('\u0000');
  let re = identifierPatterns.get(key);
  if (!re) {
    if (identifierPatterns.size > 1000) identifierPatterns.clear();
    re = new RegExp(parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[._:\\-/\\s]*'), 'gu');
    identifierPatterns.set(key, re);
  }
  // The first match at or after the first part's word (the same as matching text.slice(first)).
  re.lastIndex = first;
  const m = re.exec(text);
  return m ? m.index : -1;
}

export function cut(block: string, at: number, max: number): string {
  if (block.length <= max) return block;
  let start = Math.max(0, at - Math.floor(max / 3));
  if (start > 0) {
    const space = block.indexOf(' ', start);
    start = space >= 0 && space - start < 20 ? space + 1 : start;
  }
  let end = Math.min(block.length, start + max);
  if (end < block.length) {
    const space = block.lastIndexOf(' ', end);
    end = space > start + max / 2 ? space : end;
  }
  return `${start > 0 ? '…' : ''}${block.slice(start, end).trim()}${end < block.length ? '…' : ''}`;
}

const MAX_SCAN = 300_000;

/** Blocks worth scoring: those holding a word of the query. Found with indexOf over the whole
 * (lower-cased) text, so a long page costs a few native scans instead of a look at every block. */
function blocksWithHits(lower: string, starts: readonly number[], needles: readonly string[]): number[] {
  const hit = new Set<number>();
  for (const n of needles) {
    let from = 0;
    for (let found = 0; found < MAX_HITS_PER_WORD; found++) {
      const i = lower.indexOf(n, from);
      if (i < 0) break;
      from = i + n.length;
      // The block holding position i: the last start at or before it.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((starts[mid] as number) <= i) lo = mid;
        else hi = mid - 1;
      }
      hit.add(lo);
    }
  }
  return [...hit].sort((a, b) => a - b);
}

const MAX_HITS_PER_WORD = 400;

export function makeSnippet(body: string, description: string, concepts: readonly Concept[], title: string, max = SNIPPET_CHARS): string {
  const real = concepts.filter((c) => !c.stop);
  // Adjacent words typed apart may be one identifier on the page (`asyncio gather`).
  const joins: string[][] = [];
  for (let i = 0; i + 1 < real.length; i++) joins.push([...(real[i] as Concept).parts, ...(real[i + 1] as Concept).parts]);
  const text = body.length > MAX_SCAN ? body.slice(0, MAX_SCAN) : body;
  const blocks = text.split('\n');
  const starts: number[] = [];
  for (let i = 0, at = 0; i < blocks.length; i++) {
    starts.push(at);
    at += (blocks[i] as string).length + 1;
  }
  const needles = [...new Set(real.flatMap((c) => c.parts.map(stem)))];
  let best = { score: 0, at: -1, index: -1 };
  const lowerTitle = title.toLowerCase();
  for (const b of blocksWithHits(text.toLowerCase(), starts, needles)) {
    const block = blocks[b] as string;
    if (block.length < 3) continue;
    // A heading that repeats the title tells nothing new.
    if (block.length < 120 && lowerTitle.includes(block.toLowerCase().replace(/[¶#]+$/, ''))) continue;
    const s = blockScore(block, concepts, joins);
    // Dense passages of readable length beat long listings that mention everything once.
    const adjusted = s.score - Math.max(0, block.length - 400) / 4000;
    if (s.score > 0 && adjusted > best.score) best = { score: adjusted, at: s.at, index: b };
  }
  if (best.index >= 0) {
    let passage = blocks[best.index] as string;
    // A short passage reads better with what follows it.
    if (passage.length < max / 2) passage = `${passage} ${blocks.slice(best.index + 1, best.index + 3).join(' ')}`.trim();
    return cut(passage, Math.max(0, best.at), max);
  }
  if (description) return cut(description, 0, max);
  const opening = blocks.find((b) => b.length > 40) ?? blocks[0] ?? '';
  return cut(opening, 0, max);
}

/** A passage a snippet can be taken from, prepared at index time (decision 0017): a block of the
 * page's opening text, and when the block is short the two blocks after it (`extra`), which a short
 * passage is shown with. */
export type Passage = { block: string; extra: string | null };

/**
 * The passage of block `b` of a page (decisions 0017, 0085), or null when that block is not worth
 * scoring (too short, or a heading that repeats the title): the block, and when it is short what
 * follows it (of which no more than its first 2 × max characters can be shown). `block(i)` is the
 * page's i-th block, undefined past the last one read. The reader works passages out at query
 * time from the page's text (page-text.ts); an index from before kept them as rows.
 */
export function passageAt(block: (i: number) => string | undefined, b: number, lowerTitle: string, max = SNIPPET_CHARS): Passage | null {
  const text = block(b);
  if (text === undefined || text.length < 3) return null;
  if (text.length < 120 && lowerTitle.includes(text.toLowerCase().replace(/[¶#]+$/, ''))) return null;
  if (text.length >= max / 2) return { block: text, extra: null };
  const after = [block(b + 1), block(b + 2)].filter((t) => t !== undefined);
  return { block: text, extra: after.join(' ').slice(0, 2 * max) };
}

/** The snippet shown when no block holds the query: the description, else the opening (of the
 * first `maxBlocks` blocks). */
export function snippetFallback(body: string, description: string, maxBlocks: number, max = SNIPPET_CHARS): string {
  if (description) return cut(description, 0, max);
  const blocks = body.split('\n', maxBlocks);
  return cut(blocks.find((b) => b.length > 40) ?? blocks[0] ?? '', 0, max);
}

/**
 * The query-independent part of makeSnippet for a whole page: its first `maxBlocks` blocks worth
 * scoring (passageAt), each with its place among the page's blocks, and the snippet shown when no
 * block holds the query. The whole page, not only its opening: the passage that answers a
 * question is often far down a long page (decision 0082).
 */
export function snippetPassages(
  body: string,
  description: string,
  title: string,
  maxBlocks: number,
  max = SNIPPET_CHARS,
): { passages: { ord: number; passage: Passage }[]; fallback: string } {
  const blocks = body.split('\n', maxBlocks);
  const lowerTitle = title.toLowerCase();
  const block = (i: number) => blocks[i];
  const passages: { ord: number; passage: Passage }[] = [];
  for (let b = 0; b < blocks.length; b++) {
    const passage = passageAt(block, b, lowerTitle, max);
    if (passage) passages.push({ ord: b, passage });
  }
  return { passages, fallback: snippetFallback(body, description, maxBlocks, max) };
}

/** The snippet of a passage chosen for the query: cut around the first of the query's words in it. */
export function passageSnippet(passage: Passage, concepts: readonly Concept[], max = SNIPPET_CHARS): string {
  const text = withoutPermalinks(passage.extra !== null ? `${passage.block} ${passage.extra}`.trim() : passage.block);
  // The block opens the text: the first of the query's words in the text is the block's, if it has one.
  return cut(text, Math.max(0, firstWord(text.toLowerCase(), needlesOf(concepts))), max);
}

/** A term's permalink mark (Sphinx's `¶` after every heading and definition term) is no text: a term
 * and its description read `list comprehension — A compact way…`, not `list comprehension¶ A…`. */
export function withoutPermalinks(text: string): string {
  if (!text.includes('¶')) return text;
  return text
    .replace(/\s*¶\s*$/, '')
    .replace(/\s*¶\s+/g, ' — ')
    .replace(/¶/g, '');
}

const needles = new WeakMap<readonly Concept[], string[]>();

/** The (lightly stemmed) parts of a query's concepts, worked out once per query. */
function needlesOf(concepts: readonly Concept[]): string[] {
  let list = needles.get(concepts);
  if (!list) needles.set(concepts, (list = [...new Set(concepts.filter((c) => !c.stop).flatMap((c) => c.parts.map(stem)))]));
  return list;
}

/** Where the first of `words` starts a word in a lower-cased text, or -1. */
function firstWord(lower: string, words: readonly string[]): number {
  let first = -1;
  for (const w of words) {
    const i = findWord(lower, w);
    if (i >= 0 && (first < 0 || i < first)) first = i;
  }
  return first;
}
