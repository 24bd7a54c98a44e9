import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { definitionHeads } from '#service/search/definitions.ts';
import { extractHtml } from '#service/search/extract.ts';
import { hostOf } from '#service/search/sites.ts';
import { openWarcFile, warcPages, warcRecords } from '#service/search/sources/warc.ts';
import { hash } from '#service/search/string-numbers.ts';
import { CJK_CLASS, indexTokens, words as partsOf } from '#service/search/tokenize.ts';
import { normalizeUrl, urlKey } from '#service/search/url.ts';

/**
 * A corpus of any size for measuring how search grows (issue #30): the real corpus's pages, every
 * judged query's answer among them, followed by synthetic pages drawn from its own statistics, each
 * a distractor. A synthetic page copies the shape of a real page chosen at random (its language,
 * its title's, headings' and blocks' lengths in words, its number of distinct words, its number of
 * links) and fills each field with words of that language from the same field of the real pages (a
 * title's from titles), so common words are as common and rare ones as rare, where they are. Its
 * body holds each word on as large a share of pages as the real pages do: a page's distinct words
 * are drawn by how many real pages hold them, and its other words repeat those as often as a real
 * page that holds a word repeats it (words come in bursts; drawn one by one by their counts, a
 * topical word like `shell` went onto 2.6 times as many pages as it is on). Its links go where the
 * real pages' go (decision 0123): as large a share to pages of the corpus (the others to sites it
 * does not hold), and of those as large a share to its own site (a thousand sites of synthetic
 * pages). A link says what it points at, as links mostly do: a few words of its target's title.
 * Words and names of no real page, a larger corpus's own, come as Good–Turing's estimate and
 * Heaps' law have them ({@link GoodTuringDraw}, {@link FreshPool}; decisions 0133 and 0136).
 * Seeded: the same size gives the same pages.
 *
 * And it defines things as its real page does (issue #30, decision 0121): as many definition-list
 * entries (a `<dt>` with the name, before one of its blocks as the `<dd>`), other defined names
 * (element ids) and index anchors, each name drawn by {@link GoodTuringDraw}; and as many of its links
 * name a definition of the page they point at (`str.strip()`) as the real page's do. Without them
 * the definition paths of a query (`defs`, `described`, the words near index anchors) would see
 * the real pages only, however many distractors. These come from a
 * generator of their own, so that `definitions: false` writes the pages as before them.
 */

/** What a synthetic page copies of a real one. */
type Shape = {
  language: string;
  title: number;
  headings: number[];
  blocks: number[];
  /** How many different words its blocks hold. */
  distinct: number;
  links: number;
  markupLang: string | null;
  /** How many of its definitions have a description (extract.ts `described`). */
  described: number;
  /** Its other defined names (extract.ts `terms` beyond the described ones: ids, table keys). */
  names: number;
  /** Its index anchors (index-marks.ts): DocBook's `class="indexterm"`, Sphinx's `id="index-N"`. */
  indexAnchors: number;
  /** Its links whose text names a definition of the page they point at. */
  naming: number;
};
/** The fields of a page whose words are counted, and drawn, apart: a word of a manual's body text
 * (`https://distrowatch.com/search.php`) is seldom a word of a title, and drawn as often into
 * titles it made pages titled with a query's rarest words (decision 0084, session 18). */
type Field = 'title' | 'headings' | 'blocks';
/** A language's words: a title's and a heading's drawn one by one (they are short, and seldom repeat
 * a word), a page's body by {@link bodyWords}; its defined names by {@link GoodTuringDraw} (null for a
 * language whose pages define nothing). */
type Draws = { title: GoodTuringDraw; headings: GoodTuringDraw; body: BodyDraw; names: GoodTuringDraw | null };
/** A language's body words: by how many pages hold each, and how often a page that holds it repeats it. */
type BodyDraw = { pages: GoodTuringDraw; repeats: Map<string, number> };

/** Words of one language with their counts, drawn in proportion by Vose's alias method (one draw is O(1)). */
class WordDraw {
  readonly #words: string[];
  readonly #prob: Float64Array;
  readonly #alias: Uint32Array;

  constructor(counts: Map<string, number>) {
    this.#words = [...counts.keys()];
    const n = this.#words.length;
    let total = 0;
    for (const c of counts.values()) total += c;
    const scaled = Float64Array.from(counts.values(), (c) => (c * n) / total);
    this.#prob = new Float64Array(n);
    this.#alias = new Uint32Array(n);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length && large.length) {
      const s = small.pop() as number;
      const l = large.pop() as number;
      this.#prob[s] = scaled[s] as number;
      this.#alias[s] = l;
      scaled[l] = (scaled[l] as number) + (scaled[s] as number) - 1;
      ((scaled[l] as number) < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) this.#prob[i] = 1;
  }

  one(random: () => number): string {
    const i = Math.floor(random() * this.#words.length);
    return this.#words[random() < (this.#prob[i] as number) ? i : (this.#alias[i] as number)] as string;
  }
}

/**
 * A page body's `total` words, about `distinct` of them different, in random order. The distinct
 * words are drawn by {@link GoodTuringDraw.page}, so a word is on about its real share of pages;
 * the rest repeat them by how often a real page holding each repeats it (`the` more than `signed`).
 */
function bodyWords(draw: BodyDraw, random: () => number, total: number, distinct: number, scale: number): string[] {
  const out = [...draw.pages.page(random, distinct, scale)];
  if (out.length && out.length < total) {
    const weights = new Map(out.map((w) => [w, draw.repeats.get(w) ?? 0]));
    let sum = 0;
    for (const v of weights.values()) sum += v;
    // Every word once a page in the real pages too: repeat any.
    const again = new WordDraw(sum > 0 ? weights : new Map(out.map((w) => [w, 1])));
    while (out.length < total) out.push(again.one(random));
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as string, out[i] as string];
  }
  return out;
}

/** Where a {@link GoodTuringDraw} gets an item of no real page. */
type Fresh = { one(random: () => number, scale: number): string };

/**
 * Words or names of a language, drawn as the Good–Turing estimate has them (decision 0121 for the
 * names, 0133 for the words). A name is an identity (`zipapp.create_archive` is one function of
 * one manual) and most are defined on one page only: drawn by how many real pages define each, a
 * name on one page of 5,058 went onto 18 distractors at 10⁵ pages, where the estimate puts it on 3
 * (a name seen once stands for 0.15 of a page, `2·N₂ / N₁`). A word is alike: `b384c441`, on one
 * real page, went onto 200 distractors at 10⁶, and two words of one page met on a few of them,
 * which a query of the two could not tell from the real page. So an item seen r times is drawn by
 * r* = (r + 1)·N_{r+1} / N_r (N_r: how many items are seen r times) for r below KATZ, by r above,
 * and an item of no real page ({@link Fresh}) with the share of the items seen once: another
 * manual's names and words, which match no query, as a larger corpus of manuals has them.
 *
 * Only an item seen once in the whole language makes room for fresh ones (decision 0136): a word
 * seen once in titles and often in the body text is a word the language has, not a sign of words
 * it lacks.
 */
class GoodTuringDraw {
  readonly #draw: WordDraw;
  readonly #fresh: Fresh;
  /** For {@link page}: the items of at least HEAD_SHARE of the weight, each with its share, and
   * a draw of the others (FRESH among them) with their share in all. */
  readonly #head: string[] = [];
  readonly #headShare: number[] = [];
  readonly #tail: WordDraw | null;
  readonly #tailShare: number;
  /** The share of draws that are fresh, and of draws among the rare items ({@link page}'s tail). */
  readonly freshShare: number;
  readonly #tailFreshShare: number;

  constructor(counts: Map<string, number>, fresh: Fresh, seenOnce: (item: string) => boolean = () => true) {
    const ofCount = new Map<number, number>();
    for (const r of counts.values()) ofCount.set(r, (ofCount.get(r) ?? 0) + 1);
    const adjusted = (r: number) => {
      const [nr, next] = [ofCount.get(r) ?? 0, ofCount.get(r + 1) ?? 0];
      return r < KATZ && next > 0 ? ((r + 1) * next) / nr : r;
    };
    const weights = new Map([...counts].map(([item, r]) => [item, adjusted(r)]));
    let room = 0;
    for (const [item, r] of counts) if (r === 1 && seenOnce(item)) room++;
    if (room) weights.set(FRESH, room);
    this.#draw = new WordDraw(weights);
    this.#fresh = fresh;
    let total = 0;
    for (const w of weights.values()) total += w;
    const tail = new Map<string, number>();
    let tailWeight = 0;
    for (const [item, w] of weights)
      if (item !== FRESH && w / total >= HEAD_SHARE) {
        this.#head.push(item);
        this.#headShare.push(w / total);
      } else {
        tail.set(item, w);
        tailWeight += w;
      }
    this.#tail = tail.size ? new WordDraw(tail) : null;
    this.#tailShare = tailWeight / total;
    this.freshShare = room / total;
    this.#tailFreshShare = tailWeight ? room / tailWeight : 0;
  }

  #item(item: string, random: () => number, scale: number): string {
    return item === FRESH ? this.#fresh.one(random, scale) : item;
  }

  /** An item, for a corpus `scale` times the real one (its size sets the pool of fresh words). */
  one(random: () => number, scale: number): string {
    return this.#item(this.#draw.one(random), random, scale);
  }

  draw(random: () => number, n: number, scale: number): string {
    const out: string[] = [];
    for (let k = 0; k < n; k++) out.push(this.one(random, scale));
    return out.join(' ');
  }

  /**
   * A page's distinct items, about `distinct` of them: each on it with its share of the pages, and
   * apart from the others, as a real page holds its words. Drawn one at a time until `distinct`
   * differ, a page took too few common items (they are drawn again and again) and too many rare
   * ones. A common item is tried on its own; the rare ones, most of the items and each unlikely,
   * come as a Poisson number of draws among them.
   */
  page(random: () => number, distinct: number, scale: number): Set<string> {
    const out = new Set<string>();
    for (let i = 0; i < this.#head.length; i++) if (random() < distinct * (this.#headShare[i] as number)) out.add(this.#head[i] as string);
    const tail = this.#tail;
    if (!tail) return out;
    const n = poisson(random, distinct * this.#tailShare);
    for (let k = 0; k < n; k++) out.add(this.#item(tail.one(random), random, scale));
    // The commonest items are on a page at most once, which leaves a short page short: fill it.
    for (let tries = 0; out.size < distinct && tries < distinct * 8; tries++) out.add(this.#item(tail.one(random), random, scale));
    return out;
  }

  /** How many fresh items {@link page} draws for a page of `distinct` items, on average: its rare
   * items' draws, and those that fill the page when its common items fall short. */
  freshOfPage(distinct: number): number {
    let common = 0;
    for (const p of this.#headShare) common += Math.min(1, distinct * p);
    const rare = distinct * this.#tailShare;
    return (rare + Math.max(0, distinct - common - rare)) * this.#tailFreshShare;
  }
}

/** A Poisson-distributed count of the given mean (Knuth's product of uniforms; a normal one above 30). */
function poisson(random: () => number, mean: number): number {
  if (mean <= 0) return 0;
  if (mean > 30) {
    const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}

/**
 * A language's pool of fresh words, or of fresh names, as large as Heaps' law (V = K·Nᵝ) has it
 * for a corpus `scale` times the real one (`size`): what it holds beyond the real one's,
 * V·(scaleᵝ − 1), with β measured on the real counts (decisions 0133 and 0136). Every field
 * draws from the words' pool (a fresh word of a title is a word of some body too). A pool item is
 * made by a generator of its own seeded by its number, so every page that draws it writes the same
 * item: it copies the shape of one of the language's seen once ({@link freshName}).
 */
class FreshPool implements Fresh {
  readonly #once: readonly string[];
  readonly #segments: Segments;
  readonly #salt: number;
  readonly #names: boolean;
  /** How many items the pool of a corpus `scale` times the real one holds. */
  readonly size: (scale: number) => number;

  constructor(once: readonly string[], segments: Segments, salt: number, names: boolean, size: (scale: number) => number) {
    this.#once = once.length ? once : ['fresh'];
    this.#segments = segments;
    this.#salt = salt;
    this.#names = names;
    // Worked out once a scale: a corpus has one.
    let last: [number, number] = [NaN, 0];
    this.size = (scale) => {
      if (last[0] !== scale) last = [scale, Math.max(1, Math.round(size(Math.max(1, scale))))];
      return last[1];
    };
  }

  one(random: () => number, scale: number): string {
    return this.item(Math.floor(random() * this.size(scale)));
  }

  /** The pool's item `j`. */
  item(j: number): string {
    const from = seeded(Math.imul(j + 1, 0xc2b2ae35) ^ this.#salt);
    return freshName(this.#once[Math.floor(from() * this.#once.length)] as string, from, this.#segments, this.#names);
  }
}

/** How many index terms the real pages lack a fresh word brings, on average over `pool`'s first
 * items: a word made anew brings its new segment and the joined forms with it, one of known
 * segments nothing. */
function newTermsPerItem(pool: FreshPool, known: ReadonlyMap<string, number>): number {
  const SAMPLE = 4000;
  let terms = 0;
  for (let j = 0; j < SAMPLE; j++) for (const t of new Set(indexTokens(pool.item(j)))) if (!known.has(t)) terms++;
  return Math.max(terms / SAMPLE, 1 / SAMPLE);
}

/**
 * How many items a pool must hold for `draws` drawn evenly from it to hold `wanted` different
 * ones: P·(1 − e^(−draws/P)) = wanted, solved for P (it grows with P, toward `draws`). With
 * draws too few to hold `wanted`, a pool far larger than them: nearly every draw its own.
 */
export function poolSize(draws: number, wanted: number): number {
  if (wanted <= 0) return 1;
  if (draws <= wanted * 1.001) return Math.max(wanted, draws) * 1000;
  const held = (p: number) => p * -Math.expm1(-draws / p);
  let [low, high] = [wanted, wanted * 2];
  while (held(high) < wanted) high *= 2;
  for (let k = 0; k < 60; k++) {
    const mid = (low + high) / 2;
    if (held(mid) < wanted) low = mid;
    else high = mid;
  }
  return high;
}

/**
 * Heaps' exponent β of items counted `ofCount` (how many items are seen r times, by r): how the
 * distinct items grow from a random half of the units counted to all of them, log₂(V / V½), where
 * an item seen r times is in the half with probability 1 − 2⁻ʳ. 0 when nothing is counted.
 */
export function heapsExponent(ofCount: ReadonlyMap<number, number>): number {
  let all = 0;
  let half = 0;
  for (const [r, n] of ofCount) {
    all += n;
    half += n * (1 - 2 ** -r);
  }
  return half > 0 ? Math.log2(all / half) : 0;
}

/** Counts from which Good–Turing's estimate is taken as it is (Katz's usual threshold). */
const KATZ = 5;
/** The share of a draw's weight from which {@link GoodTuringDraw.page} tries an item on its own. */
const HEAD_SHARE = 1e-4;
/** GoodTuringDraw's key for an item of no real page (no name or word holds a NUL). */
const FRESH = '\u0000';

/** How many of a language's distinct words and names hold each part, as the index keeps a word's
 * parts (tokenize.ts words(): NFKC, lower-cased, split at joiners, CJK as character pairs;
 * `Database.Close;` -> database, close; `配置文件` -> 配置, 置文, 文件); a part of more
 * than one is known (`configuration` of `configuration);`), and `known` draws those by that number.
 * `cjk`: the Chinese, Japanese and Korean characters the language's words are written with. */
type Segments = { counts: Map<string, number>; known: WordDraw | null; cjk: string[] };

const CJK = new RegExp(CJK_CLASS, 'u');
/** A word's runs as freshName remakes them: a run of CJK characters (the index's pairs are read
 * across it), or a run of other letters, digits and marks (one part of the index). */
const RUN = new RegExp(`${CJK_CLASS}+|(?:(?!${CJK_CLASS})[\\p{L}\\p{N}\\p{M}])+`, 'gu');

function segmentCounts(items: Iterable<string>): Segments {
  const counts = new Map<string, number>();
  const cjk = new Set<string>();
  for (const item of items) {
    for (const s of new Set(partsOf(item))) counts.set(s, (counts.get(s) ?? 0) + 1);
    for (const c of item) if (CJK.test(c)) cjk.add(c);
  }
  const known = new Map([...counts].filter(([, c]) => c > 1));
  return { counts, known: known.size ? new WordDraw(known) : null, cjk: [...cjk] };
}

/**
 * A fresh word or name in the shape of `like`, one of the language's seen once. Its parts that
 * other words share are kept, and the others are made anew (punctuation kept):
 * - a run of other letters and digits letter by letter (a letter in its case, among a to z;
 *   `b384c441` -> `q907t2k3`);
 * - a run of CJK characters character by character, each character of a pair no other word holds
 *   drawn from the language's own (the index reads the run as pairs, so the new pairs are its
 *   fresh terms, as a fresh word's letters are in other scripts).
 *
 * Most words seen once are a known word with its punctuation (`configuration);`): such a word
 * stays as it is, as a larger corpus's words mostly bring no new term (an identifier of known
 * parts, `pg_stat`, is no fresh word's shape: corpusStatistics). A `distinct` one (a name: an
 * identity, defined once) of known parts only has its rarest run swapped for another known part
 * (`zipapp.create_archive` -> `zipapp.create_index`).
 */
function freshName(like: string, random: () => number, segments: Segments, distinct: boolean): string {
  const pick = <T>(from: ArrayLike<T>) => from[Math.floor(random() * from.length)] as T;
  const count = (part: string) => segments.counts.get(part) ?? 0;
  /** How many words hold the run's rarest part. */
  const runCount = (run: string) => Math.min(...partsOf(run).map(count));
  let made = false;
  const out = like.replace(RUN, (run) => {
    if (runCount(run) > 1) return run;
    made = true;
    if (CJK.test(run)) {
      const chars = [...run];
      // (The run is one of the language's words, so the language has characters to draw.)
      if (chars.length === 1) return pick(segments.cjk);
      // A character stays when every pair it is in is known.
      const pairKnown = chars.slice(1).map((c, i) => count(`${chars[i]}${c}`) > 1);
      return chars
        .map((c, i) => ((i === 0 || pairKnown[i - 1]) && (i === chars.length - 1 || pairKnown[i]) ? c : pick(segments.cjk)))
        .join('');
    }
    return run.replace(/(\p{N})|(\p{Lu})|\p{L}/gu, (_, digit?: string, upper?: string) =>
      digit ? pick('0123456789') : upper ? pick(LOWER).toUpperCase() : pick(LOWER),
    );
  });
  if (made || !distinct || !segments.known) return out;
  let rarest: RegExpExecArray | null = null;
  for (const m of like.matchAll(RUN)) if (!rarest || runCount(m[0]) < runCount(rarest[0])) rarest = m;
  if (!rarest) return out;
  const [at, was] = [rarest.index, rarest[0]];
  let swapped = segments.known.one(random);
  for (let tries = 0; swapped === was.toLowerCase() && tries < 4; tries++) swapped = segments.known.one(random);
  if (/^\p{Lu}/u.test(was)) swapped = swapped.charAt(0).toUpperCase() + swapped.slice(1);
  return like.slice(0, at) + swapped + like.slice(at + was.length);
}
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** A small seeded generator (mulberry32). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The language a real page is in, from its address (the handbook's `/browse/<lang>/`, the reference's `.<lang>.html`). */
function languageOf(url: string): string {
  const handbook = /debian-handbook\.info\/browse\/([a-z]{2})/i.exec(url);
  if (handbook) return (handbook[1] as string).toLowerCase();
  const reference = /debian-reference\/[^/]*\.([a-z]{2})(?:-[a-z]+)?\.html/i.exec(url);
  if (reference) return (reference[1] as string).toLowerCase();
  return 'en';
}

/** Index anchors as the two documentation tools of the corpus write them. */
const INDEX_ANCHORS = /class="indexterm"|id="index-\d+"/g;

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** The real corpus's shapes and each language's word counts, by field. */
export async function corpusStatistics(warc: string): Promise<{ shapes: Shape[]; draws: Map<string, Draws>; links: LinkTargets }> {
  const shapes: Shape[] = [];
  /** Every real page's key (its fetched and canonical addresses), and each link's source host and target key. */
  const pageKeys = new Set<string>();
  const linkKeys: { from: string; to: string }[] = [];
  /** Per language: each field's word counts, how many pages' blocks hold each word, and how many
   * pages define each name. */
  const counts = new Map<string, Record<Field | 'pages' | 'names', Map<string, number>>>();
  /** How many pages hold each index term, and the language of the last that does. */
  const terms = new Map<string, number>();
  const termLanguage = new Map<string, string>();
  /** Each real page's defined names as a link's text would name them (definitionHeads), by address,
   * and each shape's links' addresses and named heads: its links naming a definition are counted
   * once every page's names are known. */
  const defines = new Map<string, Set<string>>();
  const linksOf: { url: string; head: string | undefined }[][] = [];
  const add = (into: Map<string, number>, w: string) => into.set(w, (into.get(w) ?? 0) + 1);
  const count = (into: Map<string, number>, texts: readonly string[]) => {
    for (const text of texts) for (const w of words(text)) add(into, w);
  };
  for await (const item of warcPages(warcRecords(await openWarcFile(warc)))) {
    if (!('page' in item)) continue;
    const { url, html } = item.page;
    const x = extractHtml(html, url);
    const own = normalizeUrl(url);
    for (const address of [own, x.canonical]) if (address) pageKeys.add(urlKey(address));
    for (const l of x.links) linkKeys.push({ from: hostOf(own ?? '') ?? '', to: urlKey(l.url) });
    const language = languageOf(url);
    let c = counts.get(language);
    if (!c) counts.set(language, (c = { title: new Map(), headings: new Map(), blocks: new Map(), pages: new Map(), names: new Map() }));
    count(c.title, [x.title]);
    count(c.headings, x.headings);
    count(c.blocks, x.blocks);
    const distinct = new Set(x.blocks.flatMap(words));
    for (const w of distinct) add(c.pages, w);
    for (const t of new Set(indexTokens([x.title, ...x.headings, ...x.blocks].join('\n')))) {
      add(terms, t);
      termLanguage.set(t, language);
    }
    const names = new Set(x.terms);
    for (const n of names) add(c.names, n);
    defines.set(url, new Set([...names].flatMap((n) => definitionHeads(n).map((h) => h.head))));
    linksOf.push(x.links.map((l) => ({ url: l.url, head: definitionHeads(l.text)[0]?.head })));
    shapes.push({
      language,
      title: words(x.title).length,
      headings: x.headings.map((h) => words(h).length),
      blocks: x.blocks.map((b) => words(b).length).filter((n) => n > 0),
      distinct: distinct.size,
      links: x.links.length,
      markupLang: x.markupLang,
      described: x.described.length,
      names: Math.max(0, names.size - new Set(x.described.map((d) => d.term)).size),
      indexAnchors: html.match(INDEX_ANCHORS)?.length ?? 0,
      naming: 0,
    });
  }
  shapes.forEach((shape, i) => {
    for (const l of linksOf[i] as { url: string; head: string | undefined }[])
      if (l.head && defines.get(l.url)?.has(l.head)) shape.naming++;
  });
  // Heaps' exponents of the index terms by the pages holding them, all languages together (the
  // languages share many: commands, paths, names), and of the names by the pages defining them.
  const exponent = (counted: Iterable<Map<string, number>>) => {
    const ofCount = new Map<number, number>();
    for (const c of counted) for (const r of c.values()) ofCount.set(r, (ofCount.get(r) ?? 0) + 1);
    return heapsExponent(ofCount);
  };
  const [termsBeta, namesBeta] = [exponent([terms]), exponent([...counts.values()].map((c) => c.names))];
  // The corpus's new terms fall to each language as its terms seen once do.
  const onceIn = new Map<string, number>();
  let onceTerms = 0;
  for (const [t, r] of terms)
    if (r === 1) {
      const language = termLanguage.get(t) as string;
      onceIn.set(language, (onceIn.get(language) ?? 0) + 1);
      onceTerms++;
    }
  // A language with no words in a field (no headings, say) draws that field from its blocks.
  const draws = new Map<string, Draws>();
  for (const [language, c] of counts) {
    const uses = (w: string) => (c.title.get(w) ?? 0) + (c.headings.get(w) ?? 0) + (c.blocks.get(w) ?? 0);
    const seenOnce = (w: string) => uses(w) === 1;
    const vocabulary = new Set([...c.title.keys(), ...c.headings.keys(), ...c.blocks.keys()]);
    const segments = segmentCounts([...vocabulary, ...c.names.keys()]);
    const salt = hash(language, 0, language.length);
    // A fresh word copies the shape of a word seen once, and keeps its known segments: it may
    // repeat only terms on KATZ real pages or more, which Good–Turing leaves drawn by their count.
    // A word seen once of a rarer known term (`rjust()`), or an identifier of known segments
    // (`bytes.rjust`), copied as it is, would put that term back onto distractors as often as its
    // count has it, as 0131 found a word of one page on hundreds: the words queries are made of.
    // A word with an unknown segment is made anew, and is a shape.
    const isShape = (w: string) => {
      const parts = partsOf(w);
      if (parts.some((p) => (segments.counts.get(p) ?? 0) < 2)) return true;
      return parts.length < 2 && parts.every((p) => (terms.get(p) ?? KATZ) >= KATZ);
    };
    const templates = [...vocabulary].filter((w) => seenOnce(w) && isShape(w));
    // The words' pool holds as many items as, drawn as often as the synthetic pages draw fresh
    // words, bring as many new index terms as Heaps' law of the real terms has (poolSize). Most
    // items bring none (a known word with its punctuation), a compound with a new segment several.
    const perItem = newTermsPerItem(new FreshPool(templates, segments, salt, false, () => 1), terms);
    const share = (onceIn.get(language) ?? 0) / Math.max(1, onceTerms);
    let drawsPerCopy = 0;
    const pool = new FreshPool(templates, segments, salt, false, (scale) =>
      poolSize((scale - 1) * drawsPerCopy, (terms.size * (scale ** termsBeta - 1) * share) / perItem),
    );
    const blocks = new GoodTuringDraw(c.blocks, pool, seenOnce);
    const field = (f: Field) => (c[f].size ? new GoodTuringDraw(c[f], pool, seenOnce) : blocks);
    const [title, headings] = [field('title'), field('headings')];
    const byPages = new GoodTuringDraw(c.pages, pool, seenOnce);
    // Each real page of the language is copied scale − 1 times: the fresh words one copy of each draws.
    for (const shape of shapes)
      if (shape.language === language)
        drawsPerCopy +=
          byPages.freshOfPage(shape.distinct) +
          Math.max(1, shape.title) * title.freshShare +
          shape.headings.reduce((a, n) => a + Math.max(1, n), 0) * headings.freshShare;
    // A page holding a word holds it count / pages times; the first is the draw by pages.
    const repeats = new Map([...c.pages].map(([w, pages]) => [w, (c.blocks.get(w) ?? pages) / pages - 1]));
    // Fresh names, in the shape of names defined once, from a pool of their own sized by the
    // names' Heaps' law: most names are defined once, yet the handbook's translations define the
    // same ids (β 0.80, where the terms' is 0.53).
    const onceNames = [...c.names].filter(([, r]) => r === 1).map(([n]) => n);
    const freshNames = new FreshPool(onceNames, segments, salt ^ 0x5bd1e995, true, (scale) => c.names.size * (scale ** namesBeta - 1));
    draws.set(language, {
      title,
      headings,
      body: { pages: byPages, repeats },
      names: c.names.size ? new GoodTuringDraw(c.names, freshNames) : null,
    });
  }
  let inside = 0;
  let sameSite = 0;
  for (const l of linkKeys) {
    if (!pageKeys.has(l.to)) continue;
    inside++;
    if (hostOf(`https://${l.to}`) === l.from) sameSite++;
  }
  return { shapes, draws, links: { inside: linkKeys.length ? inside / linkKeys.length : 1, sameSite: inside ? sameSite / inside : 0 } };
}

/** Where the real pages' links go: the share that lands on a page of the corpus (52 %: the rest
 * name pages of other sites, which a crawl of these manuals did not fetch), and of those the
 * share on the linking page's own site (all but five of 39,459). */
type LinkTargets = { inside: number; sameSite: number };

/** Synthetic pages' hosts: the index sees this many sites. Their labels (`w0042`) name no query's word. */
const HOSTS = 1000;
const synthUrl = (i: number) => `https://w${String(i % HOSTS).padStart(4, '0')}.org/p/${i}.html`;
/** A page of another site, which the corpus does not hold (as 48 % of the real pages' links name). */
const outsideUrl = (i: number) => `https://x${String(i % HOSTS).padStart(4, '0')}.org/p/${i}.html`;

/** A synthetic page on the site of page `i` (of `count`): its own site's pages are those of its number modulo HOSTS. */
function onSite(i: number, count: number, random: () => number): number {
  const host = i % HOSTS;
  const pages = Math.floor((count - 1 - host) / HOSTS) + 1;
  return host + HOSTS * Math.floor(random() * pages);
}

type Statistics = Awaited<ReturnType<typeof corpusStatistics>>;
/** What a synthetic page is before its text: its shape, its words' draws and its title, worked out
 * from its number alone (with a generator of its own), so that a page linking to it can say what
 * it is. */
type Head = {
  shape: Shape;
  draw: Draws;
  title: string;
  random: () => number;
  /** The names it defines, the described ones first (none when the corpus is written without
   * definitions): drawn when first asked for (a link names its target's seldom), by the generator
   * of its definitions, which goes on to place them. */
  defined: () => string[];
  definitions: () => number;
  /** How many times the real pages the corpus is. */
  scale: number;
};

function synthHead(stats: Statistics, seed: number, i: number, count: number, withDefinitions: boolean): Head {
  // The corpus is this many times the real pages (the pools of fresh words grow with it).
  const scale = (stats.shapes.length + count) / stats.shapes.length;
  const random = seeded(Math.imul(i + 1, 0x9e3779b1) ^ seed);
  const shape = stats.shapes[Math.floor(random() * stats.shapes.length)] as Shape;
  const draw = stats.draws.get(shape.language) as Draws;
  const title = draw.title.draw(random, Math.max(1, shape.title), scale);
  const definitions = seeded(Math.imul(i + 1, 0x85ebca6b) ^ seed);
  let names: string[] | null = null;
  const defined = () => {
    if (names) return names;
    names = [];
    if (withDefinitions && draw.names)
      for (let k = 0; k < shape.described + shape.names; k++) names.push(draw.names.one(definitions, scale));
    return names;
  };
  return { shape, draw, title, random, defined, definitions, scale };
}

/** A link's text: one to three words in a row of its target's title. */
function linkText(target: Head, random: () => number): string {
  const words = target.title.split(' ');
  const n = Math.min(words.length, 1 + Math.floor(random() * 3));
  const from = Math.floor(random() * (words.length - n + 1));
  return words.slice(from, from + n).join(' ');
}

/** A link's text when it names a definition of its target: one of the names it defines. */
function namingText(target: Head, random: () => number): string | null {
  const names = target.defined();
  return names.length ? (names[Math.floor(random() * names.length)] as string) : null;
}

const INDEX_ANCHOR = '<a class="indexterm"></a>';

/** Where a synthetic page's definitions go, by block: which blocks are a definition's description
 * (the name before it as its `<dt>`), which carry other defined names (as ids), and the index
 * anchors before a block and in a definition's name. Drawn by the page's own generator of
 * definitions, so that its words and links are as without them. */
type Spots = { described: Map<number, string>; names: Map<number, string[]>; anchorsBefore: Uint16Array; anchorsInName: Uint16Array };

function definitionSpots(page: Head, withDefinitions: boolean): Spots {
  const { shape, definitions: random } = page;
  const defined = page.defined();
  const blocks = shape.blocks.length;
  const spots: Spots = {
    described: new Map(),
    names: new Map(),
    anchorsBefore: new Uint16Array(blocks),
    anchorsInName: new Uint16Array(blocks),
  };
  if (!withDefinitions || !blocks) return spots;
  const described = Math.min(shape.described, blocks, defined.length);
  const order = Array.from({ length: blocks }, (_, b) => b);
  for (let k = 0; k < described; k++) {
    const j = k + Math.floor(random() * (blocks - k));
    [order[k], order[j]] = [order[j] as number, order[k] as number];
    spots.described.set(order[k] as number, defined[k] as string);
  }
  for (const name of defined.slice(described)) {
    const b = Math.floor(random() * blocks);
    const into = spots.names.get(b);
    if (into) into.push(name);
    else spots.names.set(b, [name]);
  }
  for (let k = 0; k < shape.indexAnchors; k++) {
    const b = Math.floor(random() * blocks);
    // An anchor at a definition stands in its name (the spot an index entry points at), else
    // right before the block (what the block opens with is what it points at).
    const into = spots.described.has(b) && random() < 0.5 ? spots.anchorsInName : spots.anchorsBefore;
    into[b] = (into[b] as number) + 1;
  }
  return spots;
}

/** Synthetic page `i` of `count`, in the shape of a real page. */
function synthPage(stats: Statistics, seed: number, i: number, count: number, withDefinitions: boolean): string {
  const page = synthHead(stats, seed, i, count, withDefinitions);
  const { shape, draw, random, definitions, scale } = page;
  const title = escape(page.title);
  const spots = definitionSpots(page, withDefinitions);
  // A link names a definition of a page of the corpus only: the real page's naming links are a
  // share of those that land in it.
  const naming = withDefinitions && shape.links ? Math.min(1, shape.naming / (shape.links * stats.links.inside)) : 0;
  const parts: string[] = [`<h1>${title}</h1>`];
  // Links go into random blocks; headings are spread evenly among the blocks.
  const linksIn = new Uint16Array(shape.blocks.length);
  for (let k = 0; k < shape.links && shape.blocks.length; k++) {
    const b = Math.floor(random() * shape.blocks.length);
    linksIn[b] = (linksIn[b] as number) + 1;
  }
  const every = shape.headings.length ? Math.max(1, Math.floor(shape.blocks.length / shape.headings.length)) : Infinity;
  let heading = 0;
  const body = bodyWords(
    draw.body,
    random,
    shape.blocks.reduce((a, n) => a + n, 0),
    shape.distinct,
    scale,
  );
  let at = 0;
  shape.blocks.forEach((n, b) => {
    if (b % every === 0 && heading < shape.headings.length)
      parts.push(`<h2>${escape(draw.headings.draw(random, Math.max(1, shape.headings[heading++] as number), scale))}</h2>`);
    let text = escape(body.slice(at, (at += n)).join(' '));
    for (let k = 0; k < (linksIn[b] as number); k++) {
      // As the real pages' links go: into the corpus as often, and there to their own site as often.
      const inside = random() < stats.links.inside;
      const to = inside && random() < stats.links.sameSite ? onSite(i, count, random) : Math.floor(random() * count);
      const target = synthHead(stats, seed, to, count, withDefinitions);
      const words = linkText(target, random);
      const named = inside && naming && definitions() < naming ? namingText(target, definitions) : null;
      text += ` <a href="${inside ? synthUrl(to) : outsideUrl(to)}">${escape(named ?? words)}</a>`;
    }
    for (const name of spots.names.get(b) ?? []) text += `<span id="${escape(name)}"></span>`;
    const block = `${INDEX_ANCHOR.repeat(spots.anchorsBefore[b] as number)}<p>${text}</p>`;
    const name = spots.described.get(b);
    parts.push(
      name === undefined
        ? block
        : `<dl><dt>${INDEX_ANCHOR.repeat(spots.anchorsInName[b] as number)}${escape(name)}</dt><dd>${block}</dd></dl>`,
    );
  });
  const lang = shape.markupLang ? ` lang="${escape(shape.markupLang)}"` : '';
  return `<!doctype html><html${lang}><head><meta charset="utf-8"><title>${title}</title></head><body><main>${parts.join('\n')}</main></body></html>`;
}

/** One WARC response record of an HTML page, as its own gzip member (the corpus's form). */
function warcRecord(url: string, html: string): Buffer {
  const body = Buffer.from(html, 'utf8');
  const http = Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n`),
    body,
  ]);
  const head =
    `WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:${randomUUID()}>\r\nWARC-Date: 2026-11-26T00:00:00Z\r\n` +
    `WARC-Target-URI: ${url}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`;
  return gzipSync(Buffer.concat([Buffer.from(head), http, Buffer.from('\r\n\r\n')]), { level: 1 });
}

/**
 * Write `out`: the real corpus (`warc`, its gzip members as they are) and then synthetic pages up to
 * `total` pages in all (`realPages` of them real). Returns how many synthetic pages it holds.
 * `definitions: false` writes synthetic pages without definitions, index anchors or links naming
 * them: the scale corpus of decisions 0088 to 0120. `part: [k, parts]` writes part k of `parts`
 * (from 0): the real corpus in the first part only, and its share of the synthetic pages, which
 * are drawn by their number alone, so the parts one after another hold the corpus written whole.
 */
export async function writeScaleCorpus(
  warc: string,
  out: string,
  total: number,
  realPages: number,
  stats: Statistics,
  { seed = 30, definitions = true, part = [0, 1] }: { seed?: number; definitions?: boolean; part?: readonly [number, number] } = {},
): Promise<number> {
  const [k, parts] = part;
  if (!Number.isInteger(parts) || parts < 1 || !Number.isInteger(k) || k < 0 || k >= parts) throw new Error(`no part ${k} of ${parts}`);
  const file = createWriteStream(out);
  if (k === 0) for await (const chunk of createReadStream(warc)) if (!file.write(chunk)) await once(file, 'drain');
  const synthetic = Math.max(0, total - realPages);
  const per = Math.ceil(synthetic / parts);
  const [from, to] = [Math.min(synthetic, k * per), Math.min(synthetic, (k + 1) * per)];
  for (let i = from; i < to; i++)
    if (!file.write(warcRecord(synthUrl(i), synthPage(stats, seed, i, synthetic, definitions)))) await once(file, 'drain');
  file.end();
  await once(file, 'finish');
  return to - from;
}
