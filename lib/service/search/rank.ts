import { isLikelyRegion, primaryLanguage, type LanguageShares } from './language-tags.ts';
import type { Concept } from './tokenize.ts';
import { indexTokens, words } from './tokenize.ts';
import { mayHold, signLine, wordHash, type WordSignature } from './word-signature.ts';

/**
 * Second-stage ranking of the candidates the full-text index returns. The index scores each page
 * with BM25 over weighted fields; this adds what BM25 cannot see:
 *
 * - coverage: a page that contains every concept of the query beats one that matches a single
 *   very rare word many times;
 * - prominence: the query's concepts in the title, the address or a definition term of the page;
 *   an identifier typed in full (`asyncio.gather`) matched as one term there is the strongest
 *   known-item signal there is (a definition counting for the share of the query the page holds);
 * - language: the share of the page's text in the requested language, and whether its markup or
 *   its address declare that language (a bias, not a filter: other languages still come after);
 * - popularity: how many other pages link to it (log-damped, small).
 */
export type Candidate = {
  id: number;
  /** BM25 from the index, higher is better (the negated FTS5 bm25()). */
  bm25: number;
  coversAll: boolean;
  title: string;
  /** The page's headings, one a line. */
  headings: string;
  url: string;
  langShares: LanguageShares;
  markupLang: string | null;
  urlLang: string | null;
  inlinks: number;
  /** How exactly the page defines what was typed (definitions.ts), 0 to 1. */
  defines: number;
  /** As `defines`, for definitions (headings included) an index anchor marks (index-marks.ts). */
  definesIndexed: number;
  /** 1 when every word of the query stands within a few words after one of the page's index anchors
   * (index-marks.ts, decision 0081), else 0. */
  nearAnchors: number;
  /** 1 when a link to the page stands in a block of text (a paragraph, an item, a cell) that holds
   * every word of the query (decision 0081), else 0. */
  linkContext: number;
  /** The share of the query's concepts the page holds, 0 to 1 (the first stage's matched(); 1 when
   * it cannot tell). The definition features count in that proportion (decision 0081). */
  held: number;
  /** How well the page's best passage holds the query, 0 to 1 (postings.ts passageShares). */
  passage: number;
  /** The share of the query (by worth) the best block of text a link to the page stands in holds. */
  linkShare: number;
  /** How well the page's best definition answers a question (descriptions.ts), 0 to 1, in the
   * measure the first stage's best pages are on its site. */
  described: number;
  /** 1 when the page is on a site the query names (`postgres vacuum`; site-hints.ts), else 0. */
  onNamedSite: number;
  /** The page's PageRank over the links between pages, the average page 1 (authority.ts). */
  authority: number;
  /** How much the first stage's best pages come back to the page's site (sites.ts siteFocus()), 0 to 1. */
  siteFocus: number;
  /** How many other names of the namespace of a dotted name typed the page defines, 0 to 1
   * (siblingShare()): `object.__rmul__`'s reference defines `object.__radd__` and a hundred more
   * beside it, where a page that names it in passing defines one or two (decision 0137). */
  siblings: number;
  /** How much of the query's identifiers' words the page uses beyond the identifiers (postings.ts wordsUsed()), 0 to 1. */
  wordsUsed: number;

  /** The words of the title, address and headings, as rankFields() prepares them. */
  fields: RankFields;
};

/**
 * What ranking reads of a page's title, address and headings: the distinct (lightly stemmed)
 * words of each, space-separated with a space at either end, so that a word is looked for as
 * ` word ` (fieldsHolding()). Prepared when the page is indexed and stored as text
 * (encodeRankFields), so a query reading a candidate for the first time only hashes its words into
 * the signature (decodeRankFields): no map of a few hundred words, of which a query looks up a few.
 */
export type RankFields = {
  title: string;
  url: string;
  headings: string;
  /** A bit signature of the fields' words: most words a query looks up are in none of a page's
   * fields, and the signature says so without looking in them. */
  signature: WordSignature;
  hasHeadings: boolean;
  titleWords: string[];
  /** How much of the page is links to other pages (linkDensity()), 0 to 1. */
  linkDensity: number;
};
/** The fields of a page a word can be in, as bits. */
export const IN_TITLE = 1;
export const IN_URL = 2;
export const IN_HEADINGS = 4;

export function rankFields(title: string, url: string, headings: string, density = 0): RankFields {
  return fieldsOfLines(
    wordList(title).join(' '),
    wordList(url.replace(/^https?:\/\/[^/]+/, '').replace(/\.html?$/, '')).join(' '),
    wordList(headings).join(' '),
    // The title without a trailing ` — Site name`, and without section numbers.
    words(title.replace(/\s[—–|:]\s.*$/, '')).filter((t) => !/^\d+$/.test(t)),
    density,
  );
}

/** How much of a page is links to other pages: its outgoing links (navigation aside) per ten words of
 * its text, at most 1. A table of contents, a chapter's overview or a list of changes points at the
 * pages that explain things rather than explaining them (decision 0081). */
export function linkDensity(links: number, text: string): number {
  const words = text.split(/\s+/).filter(Boolean).length;
  return Math.min(1, (10 * links) / Math.max(1, words));
}

/** The fields of each one's distinct words, space-separated. */
function fieldsOfLines(title: string, url: string, headings: string, titleWords: string[], linkDensity: number): RankFields {
  const signature = new Uint8Array(SIGNATURE_BYTES);
  for (const line of [title, url, headings]) signLine(signature, line);
  return {
    title: ` ${title} `,
    url: ` ${url} `,
    headings: ` ${headings} `,
    signature,
    hasHeadings: headings.length > 0,
    titleWords,
    linkDensity,
  };
}

/** A page's field words in a signature of this many bytes (1,024 bits), two bits a word: a few
 * hundred words (most pages' title, address and headings) leave most lookups of absent words unmade. */
const SIGNATURE_BYTES = 1024 / 8;

/** The fields a word of hash `h` is in (IN_TITLE | IN_URL | IN_HEADINGS), 0 for none; the signature
 * answers for most words that are in none. */
function fieldsHolding(f: RankFields, word: string, h: number): number {
  if (!word || !mayHold(f.signature, h)) return 0;
  const w = ` ${word} `;
  return (f.title.includes(w) ? IN_TITLE : 0) | (f.url.includes(w) ? IN_URL : 0) | (f.headings.includes(w) ? IN_HEADINGS : 0);
}

/** The fields of the page that hold `word` (IN_TITLE | IN_URL | IN_HEADINGS), 0 for none. */
export const fieldsWith = (f: RankFields, word: string): number => fieldsHolding(f, word, wordHash(word));

export function encodeRankFields(f: RankFields): string {
  return [f.title.slice(1, -1), f.url.slice(1, -1), f.headings.slice(1, -1), f.titleWords.join(' '), f.linkDensity.toFixed(3)].join('\n');
}

export function decodeRankFields(text: string): RankFields {
  // A page indexed before its link density was kept has none.
  const [title = '', url = '', headings = '', titleWords = '', density = '0'] = text.split('\n');
  return fieldsOfLines(title, url, headings, titleWords ? titleWords.split(' ') : [], Number(density) || 0);
}

/** The distinct (lightly stemmed) words of a field. */
function wordList(text: string): string[] {
  return [...new Set(indexTokens(text).map(lightStem))];
}

/** Fitted by coordinate ascent on the kinds of queries of queries-dev.tsv, checked on a held-out
 * half (decision 0016); the language weights were left as they were. */
export const WEIGHTS = {
  coversAll: 0.42,
  headings: 0.88,
  /** In place of `headings` when the query's words are in the headings only taken together, no one
   * heading holding them all (decision 0081): chosen on one half of the dev set, confirmed on the other. */
  headingsSpread: 0.3,
  title: 0.675,
  titleExact: 0.25,
  url: 0.275,
  defines: 1,
  /** Chosen on the dev set's whole (decision 0080), not fitted with the others. */
  definesIndexed: 0.8,
  /** Chosen on one half of the dev set and confirmed on the other (decision 0081). */
  nearAnchors: 0.3,
  /** Chosen on one half of the dev set and confirmed on the other (decision 0081). */
  linkContext: 0.3,
  languageText: 0.9,
  languageDeclared: 0.35,
  likelyRegion: 0.05,
  inlinks: 0.03,
  /** Taken off for a page that is all links (rankFields' linkDensity); chosen on one half of the dev
   * set, confirmed on the other (decision 0081). */
  linkDensity: 0.6,
  /** A page on a site the query names (`postgres vacuum`; decision 0082). */
  namedSite: 0.5,
  /** The features of questions (decision 0082), each times how much the query reads as a question:
   * chosen on the even half of the natural questions together with our plain and handbook questions
   * (the authority the Stack Overflow questions want costs questions about the other manuals),
   * confirmed on the odd half, the judged known-item queries held where they were. */
  passage: 1,
  linkShare: 2,
  authority: 0.15,
  /** What a definition of the page is for, as its description and the links naming it say
   * (descriptions.ts), in the measure the page is in the query's language: chosen on the even half
   * of the natural questions with the plain and handbook questions beside it (0.5 to 3). */
  described: 1.5,
  /** A site that the first stage's best pages keep coming back to (sites.ts siteFocus()), for what
   * does not read as a question: chosen on the even half of the known-item queries among 95,000
   * distractors (0.5 to 2; decision 0123), and held on the corpus alone. */
  site: 1.5,
  /** A page whose title or address names the module of a dotted name the query holds (`ftplib` for
   * `ftplib.FTP.mlsd`): chosen on the even half of the known-item queries among 95,000 distractors
   * (0.25 to 1; decision 0123), and no change on the corpus alone. */
  namespace: 0.75,
  /** Chosen on the even half of the known-item queries among 95,000 distractors (0.25 to 3; 2 was
   * best there, and cost the corpus alone 0.001), confirmed on the odd half, and no change on the
   * corpus alone (decision 0137). */
  siblings: 1.5,
  /** A page using the words of the identifier a query is beyond it (postings.ts wordsUsed()): chosen
   * on the even half of the known items among 95,000 distractors of both kinds (0.5 to 2),
   * confirmed on the odd half, and no change on the corpus alone (decision 0172). */
  wordsUsed: 1.5,
};

/** Other names of a namespace from which a page is its reference (siblingShare() 1). */
const SIBLINGS_FULL = 20;

/** The `siblings` feature of a page that defines `names` names of a namespace typed, the name asked
 * for among them: 0 for none besides it, rising with the log of how many, 1 from SIBLINGS_FULL. */
export const siblingShare = (names: number): number => Math.min(1, Math.log1p(Math.max(0, names - 1)) / Math.log1p(SIBLINGS_FULL));

/** The share of the query's dotted names (`ftplib.FTP.mlsd`) whose namespace (`ftplib`) the page's
 * title or address holds; 0 for a query without one. */
function namespaceShare(n: Needs, f: RankFields): number {
  if (!n.namespaces.length) return 0;
  let held = 0;
  for (const { word, hash } of n.namespaces) if (fieldsHolding(f, word, hash) & (IN_TITLE | IN_URL)) held++;
  return held / n.namespaces.length;
}

/** English plurals to their singular, and nothing more (titles and headings are matched word for
 * word, where porter's conflations do more harm than good): `policies` -> `policy`, `indexes` ->
 * `index`, `matches` -> `match`, `tables` -> `table`; `class`, `status`, `analysis` stay. */
function lightStem(t: string): string {
  if (t.length <= 3 || !t.endsWith('s') || t.endsWith('ss') || t.endsWith('us') || t.endsWith('is')) return t;
  if (t.endsWith('ies') && t.length > 4) return `${t.slice(0, -3)}y`;
  if (/(?:x|z|ch|sh|ss)es$/.test(t)) return t.slice(0, -2);
  return t.slice(0, -1);
}

/** What the field checks need of a query's concepts, worked out once per query (by identity). */
type Needs = {
  each: { compound: string | null; stems: string[]; joined: string[]; hashes: { compound: number; stems: number[]; joined: number[] } }[];
  exact: Set<string>;
  stemmed: Set<string>;
  namespaces: { word: string; hash: number }[];
};
const needsOf = new WeakMap<readonly Concept[], Needs>();

function needs(concepts: readonly Concept[]): Needs {
  let n = needsOf.get(concepts);
  if (!n) {
    n = {
      each: concepts.map((c, i) => {
        const stems = c.parts.map(lightStem);
        const joined = joinedWith(concepts, i);
        return {
          compound: c.compound,
          stems,
          joined,
          hashes: { compound: c.compound === null ? 0 : wordHash(c.compound), stems: stems.map(wordHash), joined: joined.map(wordHash) },
        };
      }),
      // Words compare stemmed, the parts of an identifier exactly (`pg_sequences` is not `pg_sequence`).
      exact: new Set(concepts.filter((c) => c.parts.length > 1).flatMap((c) => c.parts)),
      stemmed: new Set(
        concepts
          .filter((c) => c.parts.length === 1)
          .flatMap((c) => c.parts)
          .map(lightStem),
      ),
      namespaces: concepts.flatMap((c) => (c.namespace === null ? [] : [{ word: c.namespace, hash: wordHash(c.namespace) }])),
    };
    needsOf.set(concepts, n);
  }
  return n;
}

/** The words a concept makes with the word before or after it (`back up` -> `backup`, `file name`
 * -> `filename`): a field holding one holds both concepts (decision 0082). */
function joinedWith(concepts: readonly Concept[], i: number): string[] {
  const single = (c: Concept | undefined) => (c && c.parts.length === 1 && !c.stop ? (c.parts[0] as string) : null);
  const out: string[] = [];
  const self = single(concepts[i]);
  if (self === null) return out;
  const before = single(concepts[i - 1]);
  const after = single(concepts[i + 1]);
  if (before !== null) out.push(lightStem(before + self));
  if (after !== null) out.push(lightStem(self + after));
  return out;
}

/** The fraction of concepts found in each field's words (an identifier counts when found joined
 * or all its parts are). */
function coverage(n: Needs, f: RankFields): { title: number; url: number; headings: number } {
  const each = n.each;
  if (!each.length) return { title: 0, url: 0, headings: 0 };
  let title = 0;
  let url = 0;
  let headings = 0;
  for (let i = 0; i < each.length; i++) {
    const c = each[i] as Needs['each'][number];
    let bits: number;
    if (c.compound !== null) bits = fieldsHolding(f, c.compound, c.hashes.compound);
    else {
      bits = IN_TITLE | IN_URL | IN_HEADINGS;
      for (let j = 0; j < c.stems.length && bits; j++) bits &= fieldsHolding(f, c.stems[j] as string, c.hashes.stems[j] as number);
    }
    for (let j = 0; j < c.joined.length; j++) bits |= fieldsHolding(f, c.joined[j] as string, c.hashes.joined[j] as number);
    if (bits & IN_TITLE) title++;
    if (bits & IN_URL) url++;
    if (bits & IN_HEADINGS) headings++;
  }
  return { title: title / each.length, url: url / each.length, headings: headings / each.length };
}

/** How much a page is in the requested language, from 0 to 1. */
export function languageMatch(
  c: Pick<Candidate, 'langShares' | 'markupLang' | 'urlLang'>,
  language: string,
): { text: number; declared: number; likely: boolean } {
  const text = c.langShares[language] ?? 0;
  const markup = c.markupLang ? tagOf(c.markupLang) : null;
  const url = c.urlLang ? tagOf(c.urlLang) : null;
  // A page that declares no language is not declaring another one: its text speaks for it.
  if (!markup && !url) return { text, declared: text, likely: false };
  const inMarkup = markup?.primary === language;
  const inUrl = url?.primary === language;
  return { text, declared: inMarkup || inUrl ? 1 : 0, likely: (inMarkup && !!markup?.likely) || (inUrl && !!url?.likely) };
}

/** A language tag's primary language and whether it names the language's likely region; the few
 * distinct tags of an index are worked out once. */
const tags = new Map<string, { primary: string; likely: boolean }>();
function tagOf(tag: string): { primary: string; likely: boolean } {
  let t = tags.get(tag);
  if (!t) {
    t = { primary: primaryLanguage(tag), likely: isLikelyRegion(tag) };
    if (tags.size > 10_000) tags.clear();
    tags.set(tag, t);
  }
  return t;
}

export function score(c: Candidate, concepts: readonly Concept[], language: string, maxBm25: number, question = 0): number {
  return baseScore(c, concepts, language, maxBm25, question) + answerScore(c, question);
}

/**
 * What a question's best passage and the words of the links to a page add to its score (decision
 * 0082), in the measure the query reads as one: the features that cost most to work out, so a
 * reader works them out only for the candidates they could lift onto the page asked for
 * (answer-scores.ts). It grows with each of them: given upper bounds of both, it gives one of itself.
 */
export function answerScore(c: Pick<Candidate, 'passage' | 'linkShare'>, question: number): number {
  return question * (WEIGHTS.passage * c.passage + WEIGHTS.linkShare * c.linkShare);
}

/** score() without answerScore(). */
export function baseScore(c: Candidate, concepts: readonly Concept[], language: string, maxBm25: number, question = 0): number {
  const w = WEIGHTS;
  const n = needs(concepts);
  const rel = maxBm25 > 0 ? c.bm25 / maxBm25 : 0;
  const { title, url, headings } = coverage(n, c.fields);
  const lang = languageMatch(c, language);
  const headingsAll = c.fields.hasHeadings && headings === 1;
  return (
    rel +
    (c.coversAll ? w.coversAll : 0) +
    (headingsAll ? (n.each.length < 2 || oneHeadingHolds(n, c) ? w.headings : w.headingsSpread) : 0) +
    w.title * title +
    (title === 1 && titleIsJustQuery(c.fields.titleWords, n) ? w.titleExact : 0) +
    w.url * url +
    // A page that defines part of the query (`string concatenation` for `binary string
    // concatenation`) and lacks the rest of it is less likely the answer: its definitions count for
    // the share of the query it holds (decision 0081).
    c.held * (w.defines * c.defines + w.definesIndexed * c.definesIndexed) +
    w.nearAnchors * c.nearAnchors +
    w.linkContext * c.linkContext +
    w.languageText * lang.text +
    w.languageDeclared * lang.declared +
    (lang.likely ? w.likelyRegion : 0) +
    w.inlinks * Math.log1p(c.inlinks) -
    w.linkDensity * c.fields.linkDensity +
    w.namedSite * c.onNamedSite +
    w.namespace * namespaceShare(n, c.fields) +
    w.siblings * c.siblings +
    w.wordsUsed * c.wordsUsed +
    // A site the query's best pages keep coming back to is about what it names (decision 0123);
    // what a question asks is answered by the manual it is about, which `described` weighs.
    w.site * c.siteFocus * (1 - question) +
    // What answers a question rather than names a thing (decision 0082), in the measure the query
    // reads as one: how much the whole manual points at the page, and what its definitions are for
    // (with its best passage and what the pages linking to it say it is for: answerScore()).
    question * (w.authority * Math.log(Math.max(c.authority, 1e-3)) + w.described * c.described * lang.text)
  );
}

/**
 * Copies of one page: a translated manual's pages that are not translated yet hold the original's
 * text under each language's address (the handbook's `da-DK/…/sect.apt-get.html` in English). They
 * are one result, shown at the best copy's place by the copy in the requested language: a
 * translation is never ranked above the original for a query in the original's language, and an
 * English query is not answered three times over. Copies are candidates whose addresses differ only
 * in the language they name, with the same title and the same first-stage score (the same text). The
 * copy to show for each candidate that has a better one, by id.
 */
export function copiesByLanguage(candidates: readonly Candidate[], language: string): Map<number, Candidate> {
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (!c.bm25 || !c.urlLang) continue;
    const at = c.url.toLowerCase().indexOf(c.urlLang.toLowerCase());
    if (at < 0) continue;
    const key = `${c.url.slice(0, at)}*${c.url.slice(at + c.urlLang.length)}\u0000${c.title}\u0000${c.bm25}`;
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  const out = new Map<number, Candidate>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    let best = group[0] as Candidate;
    let bestMatch = languageMatch(best, language).declared;
    for (const c of group) {
      const m = languageMatch(c, language).declared;
      if (m > bestMatch) [best, bestMatch] = [c, m];
    }
    for (const c of group) out.set(c.id, best);
  }
  return out;
}

/** For each word of a page's headings, the headings (by number, ascending) that hold it, and the
 * bytes that takes (headingIndexBytes); worked out when a query first needs them (by the page's
 * prepared fields, which a reader keeps while the index stays the same). */
type HeadingIndex = { words: Map<string, number[]>; bytes: number };
const headingIndex = new WeakMap<RankFields, HeadingIndex>();

/** What a heading index takes in V8, fitted to the heap 5,058 pages' indexes took (decision 0163;
 * within a tenth for pages of 3 to 120 heading words): each word's entry in the map, its string
 * and a one-number array, its characters, and for a word in several headings its longer array and
 * each of its numbers. */
const HEADING_WORD_BYTES = 110;
const HEADING_CHAR_BYTES = 4;
const HEADING_REPEATED_BYTES = 78;
const HEADING_LINE_BYTES = 9;

function headingIndexOf(c: Pick<Candidate, 'headings' | 'fields'>): HeadingIndex {
  let index = headingIndex.get(c.fields);
  if (!index) {
    const words = new Map<string, number[]>();
    const list = c.headings.split('\n');
    for (let i = 0; i < list.length; i++)
      for (const w of wordList(list[i] as string)) {
        const at = words.get(w);
        if (at) at.push(i);
        else words.set(w, [i]);
      }
    let bytes = 0;
    for (const [w, at] of words)
      bytes +=
        HEADING_WORD_BYTES + HEADING_CHAR_BYTES * w.length + (at.length > 1 ? HEADING_REPEATED_BYTES + HEADING_LINE_BYTES * at.length : 0);
    index = { words, bytes };
    headingIndex.set(c.fields, index);
  }
  return index;
}

/** The bytes of memory the page's heading index takes, 0 until ranking needs it: a reader that
 * keeps the page's fields counts it with them once it is there. */
export function headingIndexBytes(fields: RankFields): number {
  return headingIndex.get(fields)?.bytes ?? 0;
}

/** Whether one of the page's headings holds every concept of the query (as coverage() counts). */
function oneHeadingHolds(n: Needs, c: Pick<Candidate, 'headings' | 'fields'>): boolean {
  const index = headingIndexOf(c).words;
  // The headings holding every word so far, narrowed word by word.
  let holding: number[] | null = null;
  for (const x of n.each)
    for (const w of x.compound !== null ? [x.compound] : x.stems) {
      const at = index.get(w);
      if (!at) return false;
      holding = holding === null ? at : holding.filter((i) => at.includes(i));
      if (!holding.length) return false;
    }
  return true;
}

/** The title says little more than the query (`53.32. pg_namespace`, `DROP MATERIALIZED VIEW`). */
function titleIsJustQuery(titleWords: readonly string[], { exact, stemmed }: Needs): boolean {
  return titleWords.length > 0 && titleWords.every((t) => exact.has(t) || stemmed.has(lightStem(t)));
}
