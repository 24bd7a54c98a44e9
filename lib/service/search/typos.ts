/**
 * Typing mistakes (decision 0080): one mistake in a word (two neighbouring letters swapped, a letter
 * dropped, a letter doubled or an extra one, a letter replaced, most often by its keyboard
 * neighbour) is undone by one edit. This module is the pure half: the edits that could undo a
 * mistake in an index term, how likely each kind of mistake is, choosing among the corrections
 * the index holds, and writing the corrected words back into the query as it was typed. Which
 * terms exist, and how often, is the index's business (sqlite/speller.ts).
 */

/** What the typist did, as the correction undoes it. */
export type MistakeKind = 'swapped' | 'dropped' | 'doubled' | 'extra' | 'neighbour' | 'replaced';

/** One edit of a term: its result, where in the term, and the mistake it undoes. */
export type Edit = { text: string; kind: MistakeKind; at: number; letter: string };

/** Words shorter than this are not corrected: a short word is one edit away from too many others. */
export const MIN_CORRECTED_LENGTH = 4;
/** Nor words with more letters than this: the edits of a word grow with its letters and its
 * alphabet (a word of 64 letters of a script of its own has over 10,000, each a term to look up,
 * a few tenths of a second). The longest words of the judged queries, identifiers written as one
 * (`WindowsSelectorEventLoopPolicy`), have 30 (decision 0161). */
export const MAX_CORRECTED_LENGTH = 40;

const ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
/** The keys around each letter of a QWERTY keyboard: beside it in its row, and touching it in the
 * rows above and below (rows are staggered by about half a key). */
const NEIGHBOURS: ReadonlyMap<string, string> = (() => {
  const out = new Map<string, string>();
  ROWS.forEach((row, r) => {
    [...row].forEach((k, i) => {
      const near = [row[i - 1], row[i + 1], ROWS[r - 1]?.[i], ROWS[r - 1]?.[i + 1], ROWS[r + 1]?.[i - 1], ROWS[r + 1]?.[i]];
      out.set(k, near.filter((c): c is string => !!c).join(''));
    });
  });
  return out;
})();

export const areNeighbours = (a: string, b: string): boolean => NEIGHBOURS.get(a)?.includes(b) ?? false;

const LATIN = 'abcdefghijklmnopqrstuvwxyz';

/**
 * Every term one edit away from `term` (Damerau: a swap of neighbours, a deletion, an insertion,
 * a replacement), each once, with the likeliest mistake it undoes. Inserted and replacing letters
 * are the Latin letters (the index folds diacritics away) and the letters of the term itself.
 */
export function editsOf(term: string): Edit[] {
  const chars = [...term];
  const alphabet = [...new Set([...LATIN, ...chars.filter((c) => /\p{L}/u.test(c))])];
  const out = new Map<string, Edit>();
  const add = (e: Edit) => {
    const seen = out.get(e.text);
    if (e.text !== term && (!seen || likelihood(e) > likelihood(seen))) out.set(e.text, e);
  };
  const join = (list: string[]) => list.join('');
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    // The typist doubled a letter, or typed one too many.
    add({ text: join(chars.toSpliced(i, 1)), kind: i > 0 && chars[i - 1] === c ? 'doubled' : 'extra', at: i, letter: c });
    if (i + 1 < chars.length && chars[i + 1] !== c) {
      const swapped = [...chars];
      swapped[i] = chars[i + 1] as string;
      swapped[i + 1] = c;
      add({ text: join(swapped), kind: 'swapped', at: i, letter: c });
    }
    for (const r of alphabet) {
      if (r === c) continue;
      add({ text: join(chars.toSpliced(i, 1, r)), kind: areNeighbours(c, r) ? 'neighbour' : 'replaced', at: i, letter: r });
    }
  }
  for (let i = 0; i <= chars.length; i++)
    for (const r of alphabet) add({ text: join(chars.toSpliced(i, 0, r)), kind: 'dropped', at: i, letter: r });
  return [...out.values()];
}

/** How likely each kind of mistake is, on the log scale of the frequencies it is added to: the
 * four a typist makes most (a swap, a doubled letter, a keyboard neighbour, a dropped letter) well
 * above an arbitrary extra or replaced letter. */
export const PRIOR: Readonly<Record<MistakeKind, number>> = {
  swapped: 1.5,
  doubled: 1.5,
  neighbour: 1.5,
  dropped: 1.2,
  extra: 0.5,
  replaced: 0,
};
/** A word's first letter is the one a typist gets wrong least often. */
const FIRST_LETTER = -1;

export const likelihood = (e: Pick<Edit, 'kind' | 'at'>): number => PRIOR[e.kind] + (e.at === 0 ? FIRST_LETTER : 0);

/**
 * The edits a typist's one mistake most often needs undone, of a word as typed: the swaps, the
 * deletions, the insertions of any letter and the replacements by a keyboard neighbour (fewer
 * than editsOf, which also replaces any letter by any other).
 */
export function typistEdits(word: string): Edit[] {
  return editsOf(word).filter((e) => e.kind !== 'replaced');
}

/** A correction the index holds: its term, in how many pages, and in how many of them together
 * with the query's other words (null for a query of one word). */
export type Candidate = { term: string; edit: Edit; pages: number; together: number | null };

/**
 * The likeliest correction, as a noisy channel: how likely the word is (the pages holding it; for
 * a query of several words, the pages holding it together with the others, which is what tells
 * `form` from `from`) times how likely the mistake is. None for a word that never occurs with the
 * query's other words: that is more likely a name the index does not hold than a typo of one it does.
 */
export function bestCandidate(candidates: readonly Candidate[]): Candidate | null {
  let best: Candidate | null = null;
  let bestScore = -Infinity;
  for (const c of candidates) {
    const often = c.together === null ? c.pages : c.together;
    if (often <= 0) continue;
    const s = Math.log(often) + likelihood(c.edit);
    if (s > bestScore || (s === bestScore && best && c.term < best.term)) [best, bestScore] = [c, s];
  }
  return best;
}

/** The same edit made on the word as typed (lower case), when the term is the word's own start
 * up to the edit (the stemmer changes endings only); null otherwise. */
export function editWord(word: string, term: string, edit: Edit): string | null {
  const chars = [...word];
  const t = [...term];
  const reach = edit.kind === 'swapped' ? edit.at + 2 : edit.kind === 'dropped' ? edit.at : edit.at + 1;
  if (reach > chars.length || chars.slice(0, Math.min(reach, t.length)).join('') !== t.slice(0, Math.min(reach, t.length)).join(''))
    return null;
  const i = edit.at;
  switch (edit.kind) {
    case 'swapped':
      return [...chars.slice(0, i), chars[i + 1], chars[i], ...chars.slice(i + 2)].join('');
    case 'dropped':
      return chars.toSpliced(i, 0, edit.letter).join('');
    case 'doubled':
    case 'extra':
      return chars.toSpliced(i, 1).join('');
    default:
      return chars.toSpliced(i, 1, edit.letter).join('');
  }
}

/** `to` (lower case) written in the case of `from`, the word it replaces: all capitals, a capital
 * first letter, or letter by letter from both ends (`ResourceLaoder` -> `ResourceLoader`). */
export function inCaseOf(from: string, to: string): string {
  if (from === from.toLowerCase()) return to;
  if (from === from.toUpperCase() && [...from].length > 1) return to.toUpperCase();
  const f = [...from];
  const t = [...to];
  const upper = (c: string | undefined) => c !== undefined && c !== c.toLowerCase();
  let head = 0;
  while (head < f.length && head < t.length && (f[head] as string).toLowerCase() === t[head]) head++;
  let tail = 0;
  while (tail < f.length - head && tail < t.length - head && (f[f.length - 1 - tail] as string).toLowerCase() === t[t.length - 1 - tail])
    tail++;
  return t
    .map((c, i) => {
      const fromEnd = t.length - 1 - i;
      if (i < head) return upper(f[i]) ? c.toUpperCase() : c;
      if (fromEnd < tail) return upper(f[f.length - 1 - fromEnd]) ? c.toUpperCase() : c;
      // The edited letters: capital inside a run of capitals only.
      return upper(f[i - 1]) && upper(f[Math.min(i, f.length - 1)]) ? c.toUpperCase() : c;
    })
    .join('');
}

/** A word of the query as typed: where it is, and its lower-case form (as the query is read). */
export type TypedWord = { start: number; end: number; text: string; lower: string };

const WORD_PART = /[\p{L}\p{N}\p{M}]+/gu;

/** The words of a query with their places in it (the parts of an identifier one by one), when
 * lower-casing keeps every place (else none: the query is then shown in lower case). */
export function typedWords(query: string): TypedWord[] {
  const normal = query.normalize('NFKC');
  const lower = normal.toLowerCase();
  if (lower.length !== normal.length) return [];
  return [...normal.matchAll(WORD_PART)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    text: m[0],
    lower: lower.slice(m.index, m.index + m[0].length),
  }));
}

/** The query with each corrected word (by its lower-case form) replaced, in the case it was typed. */
export function rewriteQuery(query: string, fixes: ReadonlyMap<string, string>): string {
  const normal = query.normalize('NFKC');
  const words = typedWords(query);
  if (!words.length) {
    let out = normal.toLowerCase();
    for (const [from, to] of fixes)
      out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])${escape(from)}(?![\\p{L}\\p{N}\\p{M}])`, 'gu'), to);
    return out;
  }
  let out = '';
  let at = 0;
  for (const w of words) {
    const to = fixes.get(w.lower);
    if (to === undefined) continue;
    out += normal.slice(at, w.start) + inCaseOf(w.text, to);
    at = w.end;
  }
  return out + normal.slice(at);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
