import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { rowsAsArrays } from '#shared/sqlite.ts';
import { indexIn, seek } from '../sorted.ts';
import type { IdentifierWords } from '../identifier-words.ts';
import type { Concept } from '../tokenize.ts';
import type { AllowedPages, FirstStage, Ranked } from './first-stage.ts';
import { impact, maxScoreTopK } from './max-score.ts';
import { FIELD_WEIGHTS, PASSAGE_SLOTS } from './schema.ts';
import { FtsTokenizer } from './tokenizer.ts';
import { AskedOften } from './asked-often.ts';
import { Kept } from './kept.ts';
import { pageBits, pagesInAll, placeIn, popcount, wantsBits, type PageBits } from './page-bits.ts';
import { PASSAGE_BLOCK, passagesApart, unpackPassageBlock, unpackPostings } from './packed-postings.ts';

/**
 * The first stage of a query on postings of our own (decision 0018): for every term of the
 * full-text index, the pages that hold it, its field-weighted frequency there and the snippet
 * passages (snippet.ts) it occurs in, stored in the index file (`postings`, written by
 * postings-writer.ts) and scored here with FTS5's own BM25 (k1 1.2, b 0.75, the row's token count
 * as its length, the same idf) over typed arrays, instead of one auxiliary-function call per
 * matching row. Same terms (tokenizer.ts), same scores.
 *
 * A row is a term and one blob. In memory, and in an index from before decision 0085 (format
 * RAW_POSTINGS_FORMAT), the blob is little-endian: two uint32 (n, the number of pages, and p, of
 * passage numbers), the page ids in ascending order (n uint32), the weighted frequency in each (n
 * float32), and when p > 0 where each page's passage numbers start (n + 1 uint32) and the passage
 * numbers (p uint16): those of docs[i] are places[starts[i] .. starts[i + 1]]. The index stores
 * the same lists packed (packed-postings.ts), unpacked once when read: since decision 0132
 * (POSTINGS_FORMAT) the row of a list longer than PASSAGE_BLOCK holds the pages and frequencies
 * only, and the passage numbers are rows of `term_passages`, PASSAGE_BLOCK postings each, read
 * for the pages a query asks about (its candidates and results) and kept by block; a shorter
 * list's row holds them, as every row did before it (PACKED_POSTINGS_FORMAT). The first stage
 * reads and keeps 8 bytes a posting of a long list in memory instead of about 18.
 */
const weights = Object.entries(FIELD_WEIGHTS)
  .map(([k, v]) => `${k}=${v}`)
  .join(',');
export const POSTINGS_FORMAT = `postings 4 packed, passages apart; weights ${weights}`;
/** The format before the passages were stored apart (decision 0132): each list holds its
 * passages, which a reader still reads (the writer builds the index again). */
export const PACKED_POSTINGS_FORMAT = `postings 3 packed; weights ${weights}`;
/** The format before decision 0085, which a reader still reads (the writer builds it again). */
export const RAW_POSTINGS_FORMAT = `postings 2; weights ${weights}`;

export const K1 = 1.2;
/** A query whose terms have at least this many postings in all is ranked by MaxScore (max-score.ts),
 * the others by scoring every posting (faster for short lists; the same pages either way). */
const PRUNE_FROM = 20_000;
/** Deeper blocks (paging past the first results, query.ts) leave too low a k-th best score to prune
 * much, and are ranked by scoring every posting. */
const PRUNE_MAX_K = 100;
export type Prune = 'auto' | 'always' | 'never';
const B = 0.75;

/** K of BM25's denominator for a page of `length` terms in an index whose pages average `avg`:
 * k1 × (1 − b + b × length / avg). */
export const lengthNorm = (length: number, avg: number): number => K1 * (1 - B + (B * length) / avg);
/** The posting lists a stage keeps unpacked by default, in bytes, by how often they are asked for
 * (asked-often.ts; the corpus's are about 70 MB in all; its 650 judged queries use about a third of them). A
 * reader gives it its share of SEARCH_LIST_CACHE_MB (query.ts LIST_CACHE_BYTES; decisions 0088, 0147). */
export const POSTING_CACHE_BYTES = 256 * 1024 * 1024;

export type PostingList = { docs: Uint32Array; freqs: Float32Array; starts: Uint32Array; places: Uint16Array };

/** Where the parts of a list of n pages and p passage numbers lie in its blob (encodePostings), in
 * bytes: the frequencies, where each page's passages start (p > 0), the passage numbers, the end. */
export function postingsLayout(n: number, p: number): { freqs: number; starts: number; places: number; bytes: number } {
  const freqs = 8 + 4 * n;
  const starts = freqs + 4 * n;
  const places = starts + (p ? 4 * (n + 1) : 0);
  return { freqs, starts, places, bytes: places + 2 * p };
}

export function encodePostings(list: PostingList): Uint8Array {
  const n = list.docs.length;
  const p = list.places.length;
  const at = postingsLayout(n, p);
  const out = new Uint8Array(at.bytes);
  const words = new Uint32Array(out.buffer, 0, at.places / 4);
  words[0] = n;
  words[1] = p;
  words.set(list.docs, 2);
  new Float32Array(out.buffer, at.freqs, n).set(list.freqs);
  if (p) {
    words.set(list.starts, at.starts / 4);
    new Uint16Array(out.buffer, at.places, p).set(list.places);
  }
  return out;
}

export function decodePostings(blob: Uint8Array): PostingList {
  // Typed-array views need aligned offsets; node:sqlite hands out fresh (aligned) buffers.
  const b = blob.byteOffset % 4 === 0 ? blob : blob.slice();
  const head = new Uint32Array(b.buffer, b.byteOffset, 2);
  const n = head[0] as number;
  const p = head[1] as number;
  const at = postingsLayout(n, p);
  return {
    docs: new Uint32Array(b.buffer, b.byteOffset + 8, n),
    freqs: new Float32Array(b.buffer, b.byteOffset + at.freqs, n),
    starts: new Uint32Array(b.buffer, b.byteOffset + at.starts, p ? n + 1 : 0),
    places: new Uint16Array(b.buffer, b.byteOffset + at.places, p),
  };
}

/**
 * A list as this version of the index scores it: each posting's impact on its page's score
 * (max-score.ts impact(): the term's idf, its frequency there and the page's length norm) in
 * place of the frequency, and the highest of them. Worked out once as the list is read, so that
 * a query reads one array in the order of the list, not each page's norm at random (decision 0148);
 * kept as float32, the frequency's own size, and summed as float64 by every path alike.
 */
export type ScoredList = {
  docs: Uint32Array;
  impacts: Float32Array;
  bound: number;
  /** A long list's pages as a bitmap (page-bits.ts), null for a shorter one. */
  pages: PageBits | null;
  starts: Uint32Array;
  places: Uint16Array;
};

/** Where page `id` is in a list (its place among the list's ids), or -1: through its bitmap when
 * it has one, else by a binary search. */
const placeOf = (list: ScoredList, id: number): number => (list.pages ? placeIn(list.pages, id) : indexIn(list.docs, id));

/** About what a term kept takes in V8 besides its characters (AskedOften's entry, its slot in the
 * map, the string's header), and what a list kept takes besides its buffers (the list, its four
 * views and their buffer; its bitmap's two arrays): measured, 155 to 200 bytes for a term of ten
 * letters the index does not hold (as its map has room to spare) and 860 for one holding a page.
 * Counted, so that many small lists, or many terms no page holds (a stream of misspelt words),
 * fill the room they take (decision 0161). */
const TERM_KEPT_BYTES = 176;
const LIST_OBJECTS_BYTES = 700;
const BITMAP_OBJECTS_BYTES = 448;
function sizeOf(term: string, list: ScoredList | null): number {
  const kept = TERM_KEPT_BYTES + 2 * term.length;
  if (!list) return kept;
  const bitmap = list.pages ? BITMAP_OBJECTS_BYTES + list.pages.bits.byteLength + list.pages.before.byteLength : 0;
  return kept + LIST_OBJECTS_BYTES + list.docs.buffer.byteLength + bitmap;
}

/** What a query asks of the postings: phrases (a phrase of several terms is scored as its terms
 * and present where all are), each standing for one concept (its index), or for none (-1: a join
 * of adjacent words, which holds the concepts it joins, `spans`), and
 * what a passage holding it scores for the snippet (an identifier or joined words 2, a word 1,
 * as snippet.ts's blockScore counts). */
type Phrase = { terms: readonly string[]; concept: number; weight: number; spans?: number };

/** The concepts (as a mask of their indexes) that a join of adjacent words stands for: a page that
 * holds `backup` holds what `back up` asks, as one holding `asynciogather0` holds `asyncio gather`. */
function joinedConcepts(concepts: readonly Concept[], join: string): number {
  const bare = join.endsWith('0') ? join.slice(0, -1) : join;
  for (let i = 0; i + 1 < concepts.length && i + 1 < 32; i++)
    if ((concepts[i] as Concept).parts.join('') + (concepts[i + 1] as Concept).parts.join('') === bare)
      return ((1 << i) | (1 << (i + 1))) >>> 0;
  return 0;
}
type Statements = Record<'meta' | 'lengths' | 'lookup' | 'passages' | 'ends' | 'held', StatementSync>;
/** A block of a list's passages (packed-postings.ts unpackPassageBlock). */
type PassageBlock = { starts: Uint32Array; places: Uint16Array };
/** The blocks of a term's passages read so far, by number (null: the term has none there), and
 * the bytes they hold. */
type TermPassages = { blocks: (PassageBlock | null | undefined)[]; bytes: number };
/** What a stage keeps of the passage blocks it read: the terms' (least recently used out first),
 * and by default the bytes of their blocks unpacked; a reader gives it its share of
 * SEARCH_LIST_CACHE_MB (query.ts PASSAGES_SHARE; decision 0158). */
const PASSAGE_TERMS_KEPT = 100_000;
const PASSAGE_BLOCK_BYTES = 64 * 1024 * 1024;
/** What a block kept takes besides its numbers (its object, and its two arrays each with their
 * own buffer): measured, 400 to 490 bytes. Its blocks average about 1.4 KB unpacked at 10⁵ pages,
 * so counting 64 let them take about a third more than their room. */
const BLOCK_OBJECTS_BYTES = 448;
/** What a list holds of some pages (heldOf): their places among them, and their impacts. */
type Held = { at: Uint32Array; impacts: Float32Array };
/** A term and its list (undefined when the index has none) as the last rank() call read them. */
type TermList = { term: string; list: ScoredList | undefined };
/** Impacts kept as float32 differ by this share at most for one frequency (wordsUsed()). */
const SATURATION_TOLERANCE = 1e-4;
/** A fragment shorter than this is not looked up as the end of longer words; at most this many are. */
const MIN_FRAGMENT = 3;
const MAX_COMPLETIONS = 3;

/** A term written backwards (by code point), so that the terms ending in a fragment sort together. */
export const reversed = (term: string) => [...term].reverse().join('');

/**
 * Reads postings on one connection. Not reentrant: covering() answers for the last rank() call.
 * Its caller calls trim() between queries: until then, every list the query read stays at hand.
 */
export class PostingsStage implements FirstStage {
  readonly #db: DatabaseSync;
  readonly #tokenizer = new FtsTokenizer(100_000);
  #q: Statements | null = null;
  /** The lists read, and the terms the index does not hold (null), kept by how often they are asked. */
  readonly #cache: AskedOften<string, ScoredList | null>;
  #pages = 0;
  /** K of BM25's denominator per page id: k1 × (1 − b + b × length / average length). */
  #norm = new Float64Array(0);
  #acc = new Float64Array(0);
  #mask = new Uint32Array(0);
  #touched = new Int32Array(0);
  #touchedCount = 0;
  /** Whether the last rank() call scored every posting, so that #mask holds every page's concepts;
   * after a pruned one (max-score.ts), a page's are looked up when asked (#maskOf). */
  #everyPosting = true;
  readonly #lookedUp = new Map<number, number>();
  readonly #prune: Prune;
  /** Postings whose impact the last rank() call worked out, and those of its terms. */
  #scored = { scored: 0, total: 0 };
  /** The mask of a page holding every concept of the last rank() call. */
  #full = 0;
  #last: Phrase[] = [];
  /** Scratch space of passageShares(): each block's score, and the blocks it touched. */
  readonly #blockScores = new Float64Array(PASSAGE_SLOTS);
  readonly #blocksTouched = new Uint16Array(PASSAGE_SLOTS);
  #lastLists = new Map<string, ScoredList>();
  /** The last rank() call's phrases that stand for concepts, each with its terms' lists (those of
   * a term the index lacks left out: no page holds them). */
  #lastChecks: PhraseCheck[] = [];
  /** Arrays of ids scores() was asked about (by identity), sorted, and what each list holds of them. */
  readonly #asked = new WeakMap<readonly number[], { sorted: Uint32Array; held: WeakMap<ScoredList, Held> }>();
  /** The last rank() call's terms' lists, each once, in the order a page's score is summed in. */
  #lastTerms: ScoredList[] = [];
  /** How the index's rows are read: packed, or as an index from before decision 0085 has them. */
  #unpack: (blob: Uint8Array) => PostingList = unpackPostings;
  /** Whether the lists' passages are stored apart (POSTINGS_FORMAT), by term and block. */
  #apart = false;
  readonly #blocks: Kept<string, TermPassages>;
  #blocksRead = 0;

  /** `prune`: whether rank() prunes (max-score.ts) always, never, or past PRUNE_FROM postings.
   * `cacheBytes`: how much of the lists it reads it keeps unpacked (asked-often.ts);
   * `passageBytes`: how much of the passage blocks (PASSAGE_BLOCK_BYTES). */
  constructor(db: DatabaseSync, options: { prune?: Prune; cacheBytes?: number; passageBytes?: number } = {}) {
    this.#db = db;
    this.#prune = options.prune ?? 'auto';
    this.#cache = new AskedOften(options.cacheBytes ?? POSTING_CACHE_BYTES, sizeOf);
    this.#blocks = new Kept(PASSAGE_TERMS_KEPT, { limit: options.passageBytes ?? PASSAGE_BLOCK_BYTES, of: (t) => t.bytes });
  }

  /** Between queries: the query's lists are no longer held for it, and the least recently used
   * passage blocks past the limits go. */
  trim(): void {
    this.#cache.endQuery();
    this.#blocks.trim();
  }

  /** How many postings the last rank() call worked out, of how many its terms have. */
  get scored(): { scored: number; total: number } {
    return { ...this.#scored };
  }

  /** How many blocks of the lists' passages it has read from the index since it was made. */
  get blocksRead(): number {
    return this.#blocksRead;
  }

  /** Whether the index has postings in the format this code reads; call after every change of
   * the index (its data_version), before rank(). */
  refresh(): boolean {
    this.#cache.clear();
    // An index file from before the postings (schema migrations run in the service's own
    // connection first, so this is a race with an upgrade at most) has nothing to read yet.
    const hasMeta = this.#db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'search_meta'").get();
    if (!hasMeta) return false;
    this.#q ??= {
      meta: this.#db.prepare("SELECT value FROM search_meta WHERE key = 'postings'"),
      lengths: rowsAsArrays(this.#db.prepare('SELECT page_id, length FROM page_terms')),
      lookup: this.#db.prepare('SELECT term, data FROM postings WHERE term IN (SELECT value FROM json_each(?))'),
      // The blocks asked for, each found by its key: written as a join in that order, as SQLite
      // could choose to scan the table for a term's blocks when its statistics say it is small.
      passages: this.#db.prepare(
        'SELECT t.block, t.data FROM json_each(?2) k CROSS JOIN term_passages t WHERE t.term = ?1 AND t.block = k.value',
      ),
      ends: this.#db.prepare('SELECT reversed FROM term_ends WHERE reversed > ? AND reversed < ? LIMIT 500'),
      held: this.#db.prepare('SELECT reversed FROM term_ends WHERE reversed IN (SELECT value FROM json_each(?))'),
    };
    const meta = this.#q.meta.get() as { value: string } | undefined;
    this.#blocks.clear();
    this.#apart = meta?.value === POSTINGS_FORMAT;
    if (meta?.value === POSTINGS_FORMAT || meta?.value === PACKED_POSTINGS_FORMAT) this.#unpack = unpackPostings;
    else if (meta?.value === RAW_POSTINGS_FORMAT) this.#unpack = decodePostings;
    else return false;
    const rows = this.#q.lengths.all() as unknown as [id: number, length: number][];
    let max = 0;
    let total = 0;
    for (const [id, length] of rows) {
      if (id > max) max = id;
      total += length;
    }
    this.#pages = rows.length;
    const avg = rows.length ? total / rows.length : 1;
    this.#norm = new Float64Array(max + 1);
    for (const [id, length] of rows) this.#norm[id] = lengthNorm(length, avg);
    this.#acc = new Float64Array(max + 1);
    this.#mask = new Uint32Array(max + 1);
    this.#touched = new Int32Array(max + 1);
    this.#touchedCount = 0;
    return true;
  }

  /** The index's terms of each token (tokenizer.ts), in one round trip for those not known yet. */
  termsOf(tokens: readonly string[]): (readonly string[])[] {
    return this.#tokenizer.termsOf(tokens);
  }

  /** termsOf() for a vocabulary read once, not remembered (tokenizer.ts termsOnce). */
  termsOnce(tokens: readonly string[]): (readonly string[])[] {
    return this.#tokenizer.termsOnce(tokens);
  }

  /** The posting lists of those of `terms` the index holds (kept in memory like the query's own). */
  lists(terms: readonly string[]): Map<string, ScoredList> {
    return this.#postings(terms);
  }

  /** Those of `terms` the index holds, asked of the terms' index (term_ends) without reading
   * their postings or remembering the others: for the many edits of a misspelt word. */
  held(terms: readonly string[]): string[] {
    if (!terms.length) return [];
    const rows = (this.#q as Statements).held.all(JSON.stringify(terms.map(reversed))) as { reversed: string }[];
    return rows.map((r) => reversed(r.reversed));
  }

  #postings(terms: readonly string[]): Map<string, ScoredList> {
    const out = new Map<string, ScoredList>();
    const missing: string[] = [];
    for (const t of terms) {
      const list = this.#cache.get(t);
      if (list === undefined) missing.push(t);
      else if (list) out.set(t, list);
    }
    if (!missing.length) return out;
    const found = new Set<string>();
    for (const r of (this.#q as Statements).lookup.all(JSON.stringify(missing)) as { term: string; data: Uint8Array }[]) {
      const list = this.#withImpacts(this.#unpack(r.data));
      found.add(r.term);
      out.set(r.term, list);
      this.#cache.offer(r.term, list);
    }
    for (const t of missing) if (!found.has(t)) this.#cache.offer(t, null);
    return out;
  }

  /** BM25's idf of a term on `df` of the index's pages. */
  #idf(df: number): number {
    return Math.max(1e-6, Math.log((this.#pages - df + 0.5) / (df + 0.5)));
  }

  /** A list read from the index, scored (its frequencies become its impacts, in place). */
  #withImpacts(list: PostingList): ScoredList {
    const { docs, freqs } = list;
    const df = docs.length;
    const idf = this.#idf(df);
    const norm = this.#norm;
    const impacts = freqs;
    let bound = 0;
    for (let i = 0; i < df; i++) {
      impacts[i] = impact(idf, freqs[i] as number, norm[docs[i] as number] as number, K1);
      if ((impacts[i] as number) > bound) bound = impacts[i] as number;
    }
    const pages = wantsBits(df, norm.length) ? pageBits(docs, norm.length) : null;
    return { docs, impacts, bound, pages, starts: list.starts, places: list.places };
  }

  /** A concept is its identifier's joined form (the index holds one for every run of 2 to 5 parts,
   * tokenize.ts), else all its parts; a join of adjacent words stands for no concept. */
  #phrases(concepts: readonly Concept[], joins: readonly string[]): Phrase[] {
    const t = this.#tokenizer;
    t.learn([...concepts.flatMap((c) => c.parts), ...concepts.flatMap((c) => (c.compound ? [c.compound] : [])), ...joins]);
    const phrases: Phrase[] = concepts.map((c, i) => ({
      terms: c.compound ? t.terms(c.compound) : c.parts.flatMap((p) => t.terms(p)),
      concept: i,
      weight: c.compound ? 2 : 1,
    }));
    for (const j of joins) phrases.push({ terms: t.terms(j), concept: -1, weight: 2, spans: joinedConcepts(concepts, j) });
    return phrases;
  }

  rank(concepts: readonly Concept[], joins: readonly string[], k: number, allowed: AllowedPages | null = null): Ranked[] {
    let phrases = this.#phrases(concepts, joins);
    const termsOf = (list: readonly Phrase[]) => [...new Set(list.flatMap((p) => p.terms))];
    let lists = this.#postings(termsOf(phrases));
    // A word the index does not hold may be the end of one it does (a fragment: `pril.org`).
    const unknown = (p: Phrase) => p.concept >= 0 && p.terms.length === 1 && !lists.has(p.terms[0] as string);
    if (phrases.some(unknown)) {
      phrases = phrases.flatMap((p) => (unknown(p) ? this.#endingIn(p.terms[0] as string).map((t) => ({ ...p, terms: [t] })) : [p]));
      lists = this.#postings(termsOf(phrases));
    }
    this.#last = phrases;
    this.#lastLists = lists;
    this.#lastChecks = phrases.flatMap((p) => {
      const bit = phraseBit(p);
      const own = p.terms.map((t) => lists.get(t));
      return bit && own.length && own.every((l) => l !== undefined) ? [{ bit, own: own as ScoredList[] }] : [];
    });
    return this.#rank(phrases, lists, concepts.length, k, allowed);
  }

  /** The few shortest terms that end in `fragment` (not the fragment itself), for a fragment of at
   * least MIN_FRAGMENT letters or digits; none for a number. */
  #endingIn(fragment: string): string[] {
    const letters = fragment.endsWith('0') ? fragment.slice(0, -1) : fragment;
    if ([...letters].length < MIN_FRAGMENT || /^\d+$/.test(letters)) return [];
    const rev = reversed(fragment);
    const found = (this.#q as Statements).ends.all(rev, `${rev}\u{10FFFF}`) as { reversed: string }[];
    return found
      .map((r) => reversed(r.reversed))
      .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
      .slice(0, MAX_COMPLETIONS);
  }

  /**
   * The snippet passages of each of `ids` for the last rank() call, best first, at most `n`: the
   * blocks (by number) whose phrases weigh the most, the first of equals; none for a page with no
   * phrase in its text. More than one, since a block that holds the query may be one no snippet is
   * taken from (a heading that repeats the title, a block too short).
   */
  bestPassages(ids: readonly number[], n = 3): Map<number, number[]> {
    const out = new Map<number, number[]>();
    const phrases = this.#last.map((p) => ({ weight: p.weight, lists: this.#listsOf(p.terms) }));
    this.#readAhead(
      phrases.flatMap((p) => p.lists),
      ids,
    );
    const byBlock = this.#blockScores;
    const touched = this.#blocksTouched;
    for (const id of ids) {
      let count = 0;
      for (const p of phrases) {
        const held = this.#placesOf(p.lists, id);
        if (!held) continue;
        for (let j = 0; j < held.length; j++) {
          const o = held[j] as number;
          if (byBlock[o] === 0) touched[count++] = o;
          byBlock[o] = (byBlock[o] as number) + p.weight;
        }
      }
      if (!count) continue;
      // The n best blocks, the first of equals: a few passes over the blocks touched.
      const best: number[] = [];
      for (let k = 0; k < n && k < count; k++) {
        let at = -1;
        for (let i = 0; i < count; i++) {
          const o = touched[i] as number;
          if (best.includes(o)) continue;
          if (at < 0 || (byBlock[o] as number) > (byBlock[at] as number) || (byBlock[o] === byBlock[at] && o < at)) at = o;
        }
        best.push(at);
      }
      for (let i = 0; i < count; i++) byBlock[touched[i] as number] = 0;
      out.set(id, best);
    }
    return out;
  }

  /** The last rank() call's posting lists of `terms` (undefined for a term it had none of). */
  #listsOf(terms: readonly string[]): TermList[] {
    return terms.map((term) => ({ term, list: this.#lastLists.get(term) }));
  }

  /** The passages of page `id` holding every one of a phrase's terms (their `lists`, each once), or null. */
  #placesOf(lists: readonly TermList[], id: number): ArrayLike<number> | null {
    let held = null as ArrayLike<number> | null;
    for (const { term, list } of lists) {
      const at = list ? placeOf(list, id) : -1;
      if (!list || at < 0) return null;
      const here = this.#placesAt(term, list, at);
      if (!here) return null;
      if (!held) held = here;
      else {
        const set = new Set(here);
        held = Array.prototype.filter.call(held, (o: number) => set.has(o)) as number[];
      }
    }
    return held;
  }

  /** The passage numbers of posting `at` of a term's list: in the list, or in its block (read
   * with the others #readAhead was asked for, or on its own); null when it has none. */
  #placesAt(term: string, list: ScoredList, at: number): Uint16Array | null {
    if (list.starts.length) return list.places.subarray(list.starts[at], list.starts[at + 1]);
    if (!this.#apart || !passagesApart(list.docs.length)) return null;
    const k = Math.floor(at / PASSAGE_BLOCK);
    let block = this.#blocks.use(term)?.blocks[k];
    if (block === undefined) block = this.#readBlocks(term, list, [k])[k] ?? null;
    if (!block) return null;
    const i = at - k * PASSAGE_BLOCK;
    return block.places.subarray(block.starts[i], block.starts[i + 1]);
  }

  /** Reads the passage blocks of `lists` that hold pages `ids` and are not kept yet, one statement a term. */
  #readAhead(lists: readonly TermList[], ids: readonly number[]): void {
    if (!this.#apart) return;
    for (const { term, list } of lists) {
      if (!list || list.starts.length || !passagesApart(list.docs.length)) continue;
      const kept = this.#blocks.use(term)?.blocks;
      const wanted = new Set<number>();
      for (const id of ids) {
        const at = placeOf(list, id);
        if (at < 0) continue;
        const k = Math.floor(at / PASSAGE_BLOCK);
        if (kept?.[k] === undefined) wanted.add(k);
      }
      if (wanted.size) this.#readBlocks(term, list, [...wanted]);
    }
  }

  /** Reads blocks `ks` of a term's passages (one it does not have is kept as none); the term's blocks. */
  #readBlocks(term: string, list: ScoredList, ks: readonly number[]): (PassageBlock | null | undefined)[] {
    const kept = this.#blocks.use(term) ?? { blocks: [], bytes: TERM_KEPT_BYTES + 2 * term.length };
    for (const k of ks) kept.blocks[k] = null;
    for (const r of (this.#q as Statements).passages.all(term, JSON.stringify(ks)) as { block: number; data: Uint8Array }[]) {
      this.#blocksRead++;
      const block = unpackPassageBlock(r.data, Math.min(PASSAGE_BLOCK, list.docs.length - r.block * PASSAGE_BLOCK));
      kept.blocks[r.block] = block;
      kept.bytes += BLOCK_OBJECTS_BYTES + block.starts.byteLength + block.places.byteLength;
    }
    // Set again, so that its bytes are counted.
    this.#blocks.set(term, kept);
    return kept.blocks;
  }

  /** What each concept of the last rank() call is worth (by its index): the idf of its rarest term,
   * times its weight in `weights` (1 when absent); a concept the index does not hold is worth 0. */
  worth(weights: readonly number[] = []): Map<number, number> {
    const worth = new Map<number, number>();
    for (const p of this.#last) {
      if (p.concept < 0 || p.concept >= 32) continue;
      let idf = 0;
      for (const t of p.terms) {
        const df = this.#lastLists.get(t)?.docs.length ?? 0;
        if (df) idf = Math.max(idf, Math.log(1 + (this.#pages - df + 0.5) / (df + 0.5)));
      }
      worth.set(p.concept, Math.max(worth.get(p.concept) ?? 0, idf * (weights[p.concept] ?? 1)));
    }
    return worth;
  }

  /**
   * How well the best passage of each of `ids` answers the last rank() call's query (decision
   * 0082): a passage is one block of the page's text (a paragraph, an item, a definition's term or
   * its description; runs of two to five blocks did no better), it scores the `worth` (worth() of the last rank() call) of each
   * concept it holds, and a page its best passage's score over that of the whole query, 0 to 1. A
   * long page with one right section scores as that section does, however much else it holds.
   */
  passageShares(ids: Iterable<number>, worth: ReadonlyMap<number, number> = this.worth()): Map<number, number> {
    const out = new Map<number, number>();
    let total = 0;
    for (const w of worth.values()) total += w;
    if (total <= 0) return out;
    // Each concept's phrases that are worth something, with their lists, looked up once.
    const concepts = this.#last
      .filter((p) => p.concept >= 0 && p.concept < 32 && (worth.get(p.concept) ?? 0) > 0)
      .map((p) => ({ w: worth.get(p.concept) as number, lists: this.#listsOf(p.terms) }));
    const asked = [...ids];
    this.#readAhead(
      concepts.flatMap((c) => c.lists),
      asked,
    );
    const byBlock = this.#blockScores;
    const touched = this.#blocksTouched;
    for (const id of asked) {
      let n = 0;
      let best = 0;
      for (const { w, lists } of concepts) {
        const held = this.#placesOf(lists, id);
        if (!held) continue;
        for (let j = 0; j < held.length; j++) {
          const b = held[j] as number;
          if (byBlock[b] === 0) touched[n++] = b;
          const v = (byBlock[b] as number) + w;
          byBlock[b] = v;
          if (v > best) best = v;
        }
      }
      for (let i = 0; i < n; i++) byBlock[touched[i] as number] = 0;
      out.set(id, Math.min(1, best / total));
    }
    return out;
  }

  /**
   * At most what passageShares() gives each of `ids`: the worth of the concepts the page holds
   * anywhere over the whole query's (a passage holds no concept its page does not), at most 1.
   */
  passageBounds(ids: readonly number[], worth: ReadonlyMap<number, number>): Float64Array {
    const out = new Float64Array(ids.length);
    let total = 0;
    for (const w of worth.values()) total += w;
    if (total <= 0) return out;
    const bits: number[] = [];
    const shares: number[] = [];
    for (const [concept, w] of worth) {
      bits.push((1 << concept) >>> 0);
      shares.push(w / total);
    }
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k] as number;
      const mask = this.#maskOf(id);
      let held = 0;
      for (let j = 0; j < bits.length; j++) if (mask & (bits[j] as number)) held += shares[j] as number;
      out[k] = Math.min(1, held);
    }
    return out;
  }

  matched(ids: Iterable<number>): Map<number, number> {
    const out = new Map<number, number>();
    const concepts = popcount(this.#full);
    for (const id of ids) out.set(id, concepts ? popcount(this.#maskOf(id)) / concepts : 1);
    return out;
  }

  /**
   * An array of ids asked about again and again (a version's hubs, query.ts: the same array for
   * every question) is remembered with what each list it was scored against holds of it, for as
   * long as both live: the everyday words of questions come back in most of them. That is 8
   * bytes an id a list holds, never more than the list itself, and not counted in the cache's.
   * The array must not change once asked about.
   */
  scores(ids: readonly number[]): Map<number, number> {
    let asked = this.#asked.get(ids);
    if (!asked) this.#asked.set(ids, (asked = { sorted: Uint32Array.from(ids).sort(), held: new WeakMap() }));
    const { sorted } = asked;
    const sums = new Float64Array(sorted.length);
    // Each page's score summed in the terms' order, as rank() sums it.
    for (const list of this.#lastTerms) {
      let held = asked.held.get(list);
      if (!held) asked.held.set(list, (held = heldOf(list, sorted)));
      for (let i = 0; i < held.at.length; i++)
        sums[held.at[i] as number] = (sums[held.at[i] as number] as number) + (held.impacts[i] as number);
    }
    const out = new Map<number, number>();
    for (let i = 0; i < sorted.length; i++) if ((sums[i] as number) > 0) out.set(sorted[i] as number, sums[i] as number);
    return out;
  }

  /**
   * How much of each identifier's words (identifier-words.ts) each of `ids` uses beyond the
   * identifier itself, 0 to 1: the words it holds more often than it holds the identifier, each
   * counted by its idf, as a share of them all; averaged over the identifiers, and 0 for an
   * identifier the page does not hold. A page's impacts of two terms are their idf times a
   * saturation that grows with the term's frequency over the same length norm, so the frequencies
   * compare as the impacts divided by the idf do.
   */
  wordsUsed(identifiers: readonly IdentifierWords[], ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    if (!identifiers.length) return out;
    const t = this.#tokenizer;
    t.learn(identifiers.flatMap((i) => [i.compound, ...i.words]));
    const plans = identifiers.map((i) => ({ compound: t.terms(i.compound), words: i.words.map((w) => t.terms(w)) }));
    const lists = this.#postings([...new Set(plans.flatMap((p) => [...p.compound, ...p.words.flat()]))]);
    const idfs = new Map([...lists].map(([term, list]) => [term, this.#idf(list.docs.length)]));
    // How often a phrase of terms is on page `id`, as the saturation of its rarest there (0 where it is not).
    const saturation = (terms: readonly string[], id: number) => {
      let least = Infinity;
      for (const term of terms) {
        const list = lists.get(term);
        const at = list ? placeOf(list, id) : -1;
        if (at < 0) return 0;
        least = Math.min(least, ((list as ScoredList).impacts[at] as number) / (idfs.get(term) as number));
      }
      return least;
    };
    for (const id of ids) {
      let sum = 0;
      for (const p of plans) {
        const own = saturation(p.compound, id);
        if (!(own > 0)) continue;
        let used = 0;
        let all = 0;
        for (const terms of p.words) {
          const w = idfs.get(terms[0] as string) ?? 0;
          all += w;
          if (saturation(terms, id) > own * (1 + SATURATION_TOLERANCE)) used += w;
        }
        if (all > 0) sum += used / all;
      }
      if (sum > 0) out.set(id, sum / plans.length);
    }
    return out;
  }

  holdingAll(limit: number): Uint32Array | null {
    const full = this.#full;
    if (!full) return new Uint32Array(0);
    const lists = this.#lastLists;
    // Every page holding all the concepts holds the one held by the fewest pages (a concept is held
    // where one of its phrases is, a phrase where all its terms are): that concept's pages are
    // looked at, and only those (at most its phrases' shortest lists, summed).
    const phrasesOf = (bit: number) => this.#last.filter((p) => phraseBit(p) & bit && p.terms.length);
    const atMost = (p: Phrase) => Math.min(...p.terms.map((t) => lists.get(t)?.docs.length ?? 0));
    let fewest = 0;
    let least = Infinity;
    for (let bit = 1; bit && bit <= full; bit = (bit << 1) >>> 0) {
      if (!(full & bit)) continue;
      const n = phrasesOf(bit).reduce((sum, p) => sum + atMost(p), 0);
      if (n < least) [fewest, least] = [bit, n];
    }
    if (least > limit) return null;
    const parts = phrasesOf(fewest).map((p) => intersect(p.terms.map((t) => lists.get(t))));
    const pages = parts.length === 1 ? (parts[0] as Uint32Array) : unionSorted(parts);
    if (fewest === full) return pages;
    // Each page's concepts looked up, not kept as #maskOf() keeps them: the pages walked may be thousands.
    const out = new Uint32Array(pages.length);
    let n = 0;
    for (let i = 0; i < pages.length; i++) if (conceptsAt(this.#lastChecks, pages[i] as number) === full) out[n++] = pages[i] as number;
    return out.slice(0, n);
  }

  covering(ids: Iterable<number>): Set<number> {
    const out = new Set<number>();
    if (this.#full === 0) return out;
    for (const id of ids) if (this.#maskOf(id) === this.#full) out.add(id);
    return out;
  }

  /**
   * The `k` best pages holding any phrase, by BM25 over the phrases' terms (each term counted
   * once), best first, ties by id. Afterwards the masks tell which of the `concepts` each page
   * holds (a concept is held when one of its phrases is). With `allowed`, the best of those pages.
   */
  #rank(
    phrases: readonly Phrase[],
    lists: ReadonlyMap<string, ScoredList>,
    concepts: number,
    k: number,
    allowed: AllowedPages | null,
  ): Ranked[] {
    const acc = this.#acc;
    const mask = this.#mask;
    const touched = this.#touched;
    for (let i = 0; i < this.#touchedCount; i++) {
      const d = touched[i] as number;
      acc[d] = 0;
      mask[d] = 0;
    }
    this.#touchedCount = 0;
    this.#lookedUp.clear();
    this.#full = concepts >= 32 ? 0xffffffff : ((1 << concepts) >>> 0) - 1;
    // Each term once, in the phrases' order: the order a page's score is summed in.
    const terms: ScoredList[] = [];
    const seen = new Set<string>();
    let total = 0;
    for (const p of phrases)
      for (const t of p.terms) {
        const list = lists.get(t);
        if (seen.has(t) || !list) continue;
        seen.add(t);
        terms.push(list);
        total += list.docs.length;
      }
    this.#lastTerms = terms;
    if (this.#prune === 'always' || (this.#prune === 'auto' && total >= PRUNE_FROM && k <= PRUNE_MAX_K)) {
      this.#everyPosting = false;
      const pruned = maxScoreTopK(terms, k, allowed);
      this.#scored = { scored: pruned.scored, total };
      return pruned.ranked;
    }
    this.#everyPosting = true;
    let n = 0;
    for (const { docs, impacts } of terms) {
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i] as number;
        if (acc[d] === 0) touched[n++] = d;
        acc[d] = (acc[d] as number) + (impacts[i] as number);
      }
    }
    for (const p of phrases) {
      const bit = phraseBit(p);
      if (!bit) continue;
      // Where the phrase is present: its one term's pages, or the pages holding all its terms.
      const held = intersect(p.terms.map((t) => lists.get(t)));
      for (let i = 0; i < held.length; i++) mask[held[i] as number] = ((mask[held[i] as number] as number) | bit) >>> 0;
    }
    this.#touchedCount = n;
    this.#scored = { scored: total, total };
    return topK(acc, touched, n, k, allowed);
  }

  /** Which of the last rank() call's concepts page `id` holds, as a mask: a concept is held when
   * one of its phrases is, a phrase where all its terms are. */
  #maskOf(id: number): number {
    if (this.#everyPosting) return id < this.#mask.length ? (this.#mask[id] as number) : 0;
    let mask = this.#lookedUp.get(id);
    if (mask === undefined) this.#lookedUp.set(id, (mask = conceptsAt(this.#lastChecks, id)));
    return mask;
  }

  close(): void {
    this.#tokenizer.close();
  }
}

/** What a list holds of pages `sorted` (ascending): their places in `sorted`, and their impacts.
 * Each looked for from where the page before was (seek): hundreds of hubs cost a few steps each in
 * a list of 10⁵ pages, not a binary search each. */
function heldOf(list: ScoredList, sorted: Uint32Array): Held {
  const { docs, impacts } = list;
  const at: number[] = [];
  const held: number[] = [];
  for (let i = 0, p = 0; i < sorted.length; i++) {
    p = seek(docs, sorted[i] as number, p);
    if (p >= docs.length) break;
    if (docs[p] === sorted[i]) {
      at.push(i);
      held.push(impacts[p] as number);
    }
  }
  return { at: Uint32Array.from(at), impacts: Float32Array.from(held) };
}

/** The concepts a phrase stands for, as a mask: its own, or those of the words it joins. */
const phraseBit = (p: Phrase) => (p.concept >= 0 && p.concept < 32 ? (1 << p.concept) >>> 0 : (p.spans ?? 0));

/** A phrase standing for concepts (`bit`, phraseBit()) with its terms' lists. */
type PhraseCheck = { bit: number; own: readonly ScoredList[] };

/** Which concepts page `d` holds, as a mask: a concept where one of its phrases is, a phrase where
 * all its terms are. */
function conceptsAt(checks: readonly PhraseCheck[], d: number): number {
  let mask = 0;
  for (const { bit, own } of checks) if ((mask & bit) !== bit && own.every((l) => placeOf(l, d) >= 0)) mask = (mask | bit) >>> 0;
  return mask;
}

/** The values of any of `parts` (each ascending, each value once), ascending, each once. */
function unionSorted(parts: readonly Uint32Array[]): Uint32Array {
  const all = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (!n || all[i] !== all[n - 1]) all[n++] = all[i] as number;
  return all.slice(0, n);
}

/** Page ids in every list (none when a list is missing). */
function intersect(lists: readonly (ScoredList | undefined)[]): Uint32Array {
  if (!lists.length || lists.some((l) => !l)) return new Uint32Array(0);
  return pagesInAll(lists as ScoredList[]);
}

/** The k highest scores among the touched pages (those `allowed`, when given), best first, ties by id; a bounded min-heap. */
function topK(acc: Float64Array, touched: Int32Array, n: number, k: number, allowed: AllowedPages | null): Ranked[] {
  const heap: number[] = [];
  // a worse than b: lower score, or the same score and a higher id.
  const worse = (a: number, b: number) => (acc[a] as number) < (acc[b] as number) || (acc[a] === acc[b] && a > b);
  const swap = (i: number, j: number) => {
    const t = heap[i] as number;
    heap[i] = heap[j] as number;
    heap[j] = t;
  };
  for (let i = 0; i < n; i++) {
    const d = touched[i] as number;
    if (allowed && !allowed[d]) continue;
    if (heap.length < k) {
      heap.push(d);
      for (let c = heap.length - 1; c > 0;) {
        const p = (c - 1) >> 1;
        if (!worse(heap[c] as number, heap[p] as number)) break;
        swap(c, p);
        c = p;
      }
      continue;
    }
    // Most pages score below the worst kept one: one comparison each.
    if ((acc[d] as number) < (acc[heap[0] as number] as number) || !worse(heap[0] as number, d)) continue;
    heap[0] = d;
    for (let at = 0; ;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let m = at;
      if (l < heap.length && worse(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && worse(heap[r] as number, heap[m] as number)) m = r;
      if (m === at) break;
      swap(at, m);
      at = m;
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0)).map((id) => ({ id, s: acc[id] as number }));
}
