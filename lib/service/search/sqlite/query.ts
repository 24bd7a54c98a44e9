import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { MAX_DEPTH } from '#shared/protocol/search.ts';
import type { SearchAnswer, SearchRequest, SearchResult } from '../backend.ts';
import { queryHeads, type DefinitionHead } from '../definitions.ts';
import { pageLanguage } from '../language-tags.ts';
import { addAnswerScores, byScore, type Scored } from '../answer-scores.ts';
import { answerScore, baseScore, copiesByLanguage, headingIndexBytes, type Candidate } from '../rank.ts';
import { makeSnippet, passageAt, passageSnippet, SNIPPET_SCAN, type Passage } from '../snippet.ts';
import { ownValues, QUESTION_FROM, questionHeads, questionWorth, searchedWords, understand } from '../question.ts';
import { siteHints, siteNames, type SiteNames } from '../site-hints.ts';
import { focusedHosts, hostCounts, recurringHostShares, sampleFocus, surprisingHost } from '../sites.ts';
import { grown } from '../typed-arrays.ts';
import type { Concept, ParsedQuery } from '../tokenize.ts';
import { identifierWords, type IdentifierWords } from '../identifier-words.ts';
import { rewriteQuery } from '../typos.ts';
import { FtsStage, type AllowedPages, type FirstStage, type Ranked } from './first-stage.ts';
import { PostingsStage } from './postings.ts';
import { SitePages } from './site-pages.ts';
import { Speller } from './speller.ts';
import { InboundLinks } from './link-words.ts';
import { DescribedDefinitions } from './described.ts';
import { AskedOften } from './asked-often.ts';
import { signalsBytes, signalsOf, type SignalRow, type Signals } from './signals.ts';
import { Kept } from './kept.ts';
import { PageText, type Blocks } from './page-text.ts';
import { DEF_BESIDE, DEF_INDEXED, DEF_NEAR, DEF_PASSAGE, PASSAGE_SLOTS, readAsCurrent } from './schema.ts';
import { NearAnchors } from './near-anchors.ts';
import { NamespaceSiblings } from './siblings.ts';
import { LanguagePages } from './language-pages.ts';
import { HubPages } from './hub-pages.ts';

const CANDIDATES = 60;
/** The first stage's best pages in the language asked for that are candidates however many pages
 * in other languages rank above them (decision 0123). */
const LANGUAGE_CANDIDATES = 20;
/** The first stage's best pages of a site its best pages keep coming back to (FOCUS_PAGES of them
 * or more, on the FOCUSED_SITES sites with most) that are candidates however many pages of other
 * sites rank above them (decision 0123; 10 to 40 among 95,000 distractors); as many again of its
 * pages in the language asked for, when its best are not all in it (decision 0170). */
const SITE_CANDIDATES = 20;
const FOCUS_PAGES = 3;
const FOCUSED_SITES = 2;
/** A site holding the pages that hold all of a query far beyond chance (sites.ts surprisingHost):
 * its SITE_CANDIDATES best of them join the candidates (decision 0167), and as many of them in the
 * language asked for (0170). The surprise, in nats, is above the highest of the distractors' sites
 * on the even half of the known items among 10⁶ pages (25), and 20 gives the same ranks. The pages
 * holding all of a query are looked at only when its rarest concept is on at most HOLDING_PAGES
 * pages: a query of everyday words names nothing a site could hold beyond chance, and the walk
 * costs a look-up a page. */
const HOLDING_SURPRISE = 30;
const HOLDING_PAGES = 20_000;
/** For a question, how many of the first stage's best pages on the site of its hubs join its
 * candidates (decision 0166): two sites of twenty answered no better among 10⁶ pages. */
const QUESTION_SITE_CANDIDATES = 10;
/** The index file is read through a memory map up to this size: a query's scattered reads
 * (passages, definitions, signals) are then page faults the OS serves from its cache, not a read
 * call each through SQLite's own small cache. SQLite as Node builds it maps at most 2 GB
 * (SQLITE_MAX_MMAP_SIZE; `PRAGMA mmap_size` answers 2147418112): past that, at 10⁵ pages and
 * more, the rest of the file is read by read calls (decision 0131). */
const MMAP_BYTES = 4 * 1024 ** 3;
/** The costlier coverage check looks at the head of the list only (and at pages that define the query). */
const FEATURE_DEPTH = 25;
const MAX_DEFINERS = 50;
/** The pages whose definitions best answer a question (descriptions.ts) that join its candidates
 * and count as answering it (chosen on the even half of the natural questions, 10 to 40). */
const DESCRIBED_PAGES = 20;
/** The hubs (hub-pages.ts) that join a question's candidates: those whose first-stage score, over
 * its best page's, plus HUB_WEIGHT times the log of their authority is highest (decision 0139;
 * chosen on the even half of the natural questions among 10⁶ pages). */
const HUB_CANDIDATES = 20;
const HUB_WEIGHT = 0.4;
/** The first stage's best pages whose sites say which manual a question is about, those of a site
 * that comes back among them (recurringHostShares): chosen on the even half of the natural
 * questions, on the corpus alone and among 5,000 distractors (10 to 60; decision 0088). A
 * question's hubs (HUB_CANDIDATES) count among them (decision 0139). */
const SITE_SAMPLE = 60;
/** A word of the block an index anchor opens, against a name the anchor marks (decision 0080). */
const PASSAGE_WEIGHT = 0.5;
/** The share of a query's words (stop words aside) a page must hold to be a result (decision 0080). */
export const MIN_MATCHED = 0.5;
/** The pages' ranking signals a reader keeps prepared in memory, against its lists' memory
 * (`listCacheBytes`): a quarter as much again (96 MB by default, the signals of about 45,000
 * pages; decision 0157). */
const SIGNALS_SHARE = 1 / 4;
/** The blocks of the long lists' passages a reader keeps unpacked, against its lists' memory: a
 * sixth as much again (64 MB by default, as before decision 0158; 400 MB with the 2.4 GB of lists
 * the service gives its one query thread on a 24 GB machine). A pass of the dev queries reads 74
 * MB of them at 10⁵ pages, and about 190 MB at 10⁶. */
const PASSAGES_SHARE = 1 / 6;
/** Definition heads whose pages a reader keeps in memory (a few hundred bytes each; a pass over the
 * benchmark's 2,085 queries looks up about 16,000). */
const HEADS_KEPT = 40_000;
/** The first stage's pages that deeper pages of results are taken from (after the first
 * CANDIDATES): enough for MAX_DEPTH results with room for duplicates and pages holding too little
 * of the query. */
const DEEP_CANDIDATES = 2 * MAX_DEPTH;
/** A reader's lists kept in memory (`listCacheBytes`, SEARCH_LIST_CACHE_MB) by default: two thirds
 * of them posting lists (postings.ts), a third the definitions' (stored-descriptions.ts). At 10⁶
 * pages the dev questions read about 1.5 GB of posting lists and 0.5 GB of definitions' lists
 * (decision 0147). */
export const LIST_CACHE_BYTES = 384 * 1024 * 1024;

/**
 * The pages defining a query: the strongest (MAX_DEFINERS), which join its candidates, and how
 * strongly any page defines it, as rank.ts reads it (Candidate's defines and definesIndexed).
 * A candidate's strength does not depend on how many other pages define the query: at 10⁶ pages,
 * thousands of pages define `sort` or `encode`, and the reference among the candidates that
 * defines them was read as defining nothing (decision 0140). Read until the next query's.
 */
type Definers = { joining: readonly number[]; defines(id: number): number; indexed(id: number): number };
type DefRow = { id: number; weight: number; kind: number };
const ids = (list: readonly (number | string)[]) => JSON.stringify(list);
/** The ids of the `n` best of `ranked` (sorted in place), best first, ties by id, as the first stage orders them. */
const bestIds = (ranked: Ranked[], n: number): number[] =>
  ranked
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, n)
    .map((r) => r.id);

/** The words of a query that is one identifier (identifier-words.ts), else none. */
const oneIdentifier = (asking: Asking): IdentifierWords[] =>
  asking.concepts.length === 1 ? identifierWords(asking.concepts, asking.req.language) : [];
/** How many of the pages holding a query of one identifier that use most of its words join its
 * candidates (#aboutIdentifier; decision 0172). */
const IDENTIFIER_CANDIDATES = 10;

/** A head's definers as the query reads them: by index, each page's weight, what its kind takes
 * off (PASSAGE_WEIGHT for a word of an anchor's block) and its kind; `most`, the highest page id. */
type DefinerList = { ids: Int32Array; weights: Float64Array; factors: Float64Array; kinds: Uint8Array; most: number };

function definerList(rows: readonly DefRow[]): DefinerList {
  const list: DefinerList = {
    ids: new Int32Array(rows.length),
    weights: new Float64Array(rows.length),
    factors: new Float64Array(rows.length),
    kinds: new Uint8Array(rows.length),
    most: 0,
  };
  rows.forEach((r, i) => {
    list.ids[i] = r.id;
    list.weights[i] = r.weight;
    list.factors[i] = r.kind & DEF_PASSAGE ? PASSAGE_WEIGHT : 1;
    list.kinds[i] = r.kind;
    list.most = Math.max(list.most, r.id);
  });
  return list;
}

/** Per-page scratch space of #definersOf(), by page id, reset by a new stamp instead of a fill. */
class PageScratch {
  defines = new Float64Array(0);
  indexed = new Float64Array(0);
  seen = new Uint32Array(0);
  stamp = 1;

  /** How strongly page `id` defines the query, as a definition and as one an index anchor marks
   * (0 for a page not touched since the last next()). */
  definesOf(id: number): number {
    return this.seen[id] === this.stamp ? (this.defines[id] as number) : 0;
  }

  indexedOf(id: number): number {
    return this.seen[id] === this.stamp ? (this.indexed[id] as number) : 0;
  }

  /** Room for page ids up to `most`. */
  fit(most: number): void {
    if (most < this.seen.length) return;
    const size = Math.max(most + 1, this.seen.length * 2);
    this.defines = grown(this.defines, size);
    this.indexed = grown(this.indexed, size);
    this.seen = grown(this.seen, size);
  }

  /** Every page unseen again. */
  next(): void {
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
  }
}

/** A query as the ranking reads it: the request, the concepts typed (stop words among them) and
 * those searched (and which of them are the asker's own values), the joins of adjacent words, how
 * much it reads as a question (question.ts) and the sites it names (site-hints.ts), if any. */
type Asking = {
  req: SearchRequest;
  typed: readonly Concept[];
  concepts: readonly Concept[];
  /** Which of `concepts` are values of the asker's own (ownValues()). */
  values: readonly boolean[];
  joins: readonly string[];
  question: number;
  sites: ReadonlySet<string> | null;
};

/** The concepts a query searches: its words other than stop words, or all of them when it has only those. */
function realConcepts(parsed: ParsedQuery): Concept[] {
  const real = parsed.concepts.filter((c) => !c.stop);
  return real.length ? real : parsed.concepts;
}

/**
 * One read-only connection to the index and the whole query path on it: the first stage (our
 * postings, or FTS5 for an index whose postings are not built yet; first-stage.ts), pages that
 * define the query, the re-ranking (rank.ts) and the snippets. Synchronous; the backend runs one
 * per worker thread (or one in-process). A query reads one snapshot of the index; what it keeps
 * in memory between queries (signals, postings) is dropped when the index's data_version changes.
 */
export class IndexReader {
  readonly #db: DatabaseSync;
  readonly #postings: PostingsStage;
  readonly #fts: FtsStage;
  readonly #speller: Speller;
  readonly #definers: StatementSync;
  readonly #siblings: NamespaceSiblings;
  readonly #signals: StatementSync;
  readonly #content: StatementSync;
  readonly #fallbacks: StatementSync;
  readonly #version: StatementSync;
  readonly #begin: StatementSync;
  readonly #commit: StatementSync;
  readonly #passages: StatementSync;
  readonly #anyPassageRow: StatementSync;
  /** Whether the index holds passages as rows (pages stored before decision 0085), read once per index version. */
  #passageRows: boolean | null = null;
  readonly #text: PageText;
  /** Parsed signals by page id, the pages asked for most often (decision 0157), valid while the
   * index's data_version stays the same. */
  readonly #kept: AskedOften<number, Signals>;
  /** Pages defining each head looked up, valid as #kept. */
  readonly #heads = new Kept<string, DefinerList>(HEADS_KEPT);
  readonly #defScratch = new PageScratch();
  /** The candidates' words near their index anchors, valid as #kept. */
  readonly #near: NearAnchors;
  /** Pages with each word looked up around a link to them, and which of those blocks hold it, valid as #kept. */
  /** The blocks of text the links to each page stand in (link-words.ts). */
  readonly #inbound: InboundLinks;
  /** Each site's icon, by host (read once per index version). */
  #icons: Map<string, string> | null = null;
  /** The index's hosts that a query's word can name, by the word (site-hints.ts), worked out once per index version. */
  #siteNames: SiteNames | null = null;
  readonly #sites: StatementSync;
  /** The pages each site filter allows, for the index version it is told. */
  readonly #sitePages: SitePages;
  /** The pages in each language, for the index version it is told. */
  readonly #languagePages: LanguagePages;
  /** The pages the index links to most, for the index version it is told. */
  readonly #hubPages: HubPages;
  /** What the index's definitions are for (descriptions.ts), read once per index version. */
  readonly #described: DescribedDefinitions;
  #keptVersion = -1;
  #stage: FirstStage;

  /** `listCacheBytes`: how much of the lists it reads it keeps in memory (LIST_CACHE_BYTES). */
  constructor(file: string, options: { listCacheBytes?: number } = {}) {
    const lists = options.listCacheBytes ?? LIST_CACHE_BYTES;
    this.#db = new DatabaseSync(file, { readOnly: true });
    this.#db.exec('PRAGMA busy_timeout = 5000');
    // A published generation of an older schema is read as it is (a writable index is migrated
    // before any reader opens it).
    readAsCurrent(this.#db);
    this.#db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
    this.#postings = new PostingsStage(this.#db, {
      cacheBytes: Math.round((2 * lists) / 3),
      passageBytes: Math.round(lists * PASSAGES_SHARE),
    });
    this.#kept = new AskedOften(Math.round(lists * SIGNALS_SHARE), signalsBytes);
    this.#fts = new FtsStage(this.#db);
    this.#speller = new Speller(this.#postings);
    this.#stage = this.#fts;
    this.#sitePages = new SitePages(this.#db);
    this.#languagePages = new LanguagePages(this.#db);
    this.#hubPages = new HubPages(this.#db);
    const among = 'IN (SELECT value FROM json_each(?))';
    this.#version = this.#db.prepare('PRAGMA data_version');
    this.#begin = this.#db.prepare('BEGIN');
    this.#commit = this.#db.prepare('COMMIT');
    // The snippet passages chosen for the results (postings.ts bestPassages).
    this.#passages = this.#db.prepare(`SELECT id, block, extra FROM passages WHERE id ${among}`);
    // The pages defining a head, best first: enough for the best MAX_DEFINERS over several heads.
    // Headings and names kept only because an index anchor marks them come after real definitions.
    this.#definers = this.#db.prepare(
      `SELECT page_id AS id, weight, kind FROM defs WHERE head = ? AND (kind != ${DEF_NEAR} OR weight > 0)
       ORDER BY (kind & ${DEF_BESIDE}) != 0, (kind & ${DEF_PASSAGE}) != 0, weight DESC, page_id LIMIT ${MAX_DEFINERS}`,
    );
    this.#near = new NearAnchors(this.#db);
    this.#siblings = new NamespaceSiblings(this.#db);
    // The pages with a word in the block of text a link to them stands in (decision 0081).
    this.#inbound = new InboundLinks(this.#db);
    this.#described = new DescribedDefinitions(this.#db, this.#postings, Math.round(lists / 3));
    this.#sites = this.#db.prepare('SELECT host, icon FROM sites');
    this.#signals = this.#db
      .prepare(`SELECT id, url, title, headings, lang_shares, markup_lang, url_lang, inlinks, authority, rank_words, section,
      near_signature FROM signals WHERE id ${among}`);
    // A page's snippet when no passage holds the query, read for the results shown only: joined to
    // every candidate's signals it was two fifths of reading them (decision 0151).
    this.#fallbacks = this.#db.prepare(`SELECT id, text FROM snippet_fallback WHERE id ${among}`);
    this.#content = this.#db.prepare(`SELECT id, substr(body, 1, ${SNIPPET_SCAN}) AS body, description FROM pages WHERE id ${among}`);
    this.#text = new PageText(this.#db);
    this.#anyPassageRow = this.#db.prepare('SELECT 1 FROM passages LIMIT 1');
  }

  search(req: SearchRequest): SearchAnswer {
    let understood = understand(req.query);
    let parsed = searchedWords(req.query, understood, req.language);
    if (!realConcepts(parsed).length) return { results: [] };
    // One read transaction: every statement of the query sees the same state of the index.
    this.#begin.run();
    try {
      this.#sync();
      // Misspelt words are corrected from the index's vocabulary (on the postings only).
      let corrected: string | null = null;
      if (!req.exact && this.#stage === this.#postings) {
        const fixes = this.#speller.correct(parsed.concepts);
        if (fixes.size) {
          corrected = rewriteQuery(req.query, fixes);
          understood = understand(corrected);
          parsed = searchedWords(corrected, understood, req.language);
        }
      }
      // First: the words naming a site are no longer searched once they are found.
      const sites = this.#siteHinted(parsed);
      const concepts = realConcepts(parsed);
      const asking: Asking = {
        req,
        typed: parsed.concepts,
        concepts,
        values: ownValues(corrected ?? req.query, understood, concepts, req.language),
        joins: parsed.joins,
        question: understood.question,
        sites,
      };
      const page = this.#search(asking);
      return corrected === null ? page : { ...page, corrected: { query: corrected } };
    } finally {
      this.#commit.run();
    }
  }

  /**
   * Reads now what the first search of this version of the index reads before it can answer
   * (decision 0135): every page's length for BM25, host and languages, a scan of every page each
   * (seconds at 10⁶ pages). A query thread calls it as it starts, so that a fresh service's first
   * search is as fast as the ones after it.
   */
  warm(): void {
    this.#begin.run();
    try {
      this.#sync();
      this.#siteNames ??= siteNames(this.#sitePages.hosts(this.#keptVersion));
      this.#languagePages.warm(this.#keptVersion);
      this.#hubPages.warm(this.#keptVersion);
    } finally {
      this.#commit.run();
    }
  }

  /** What is kept between queries is dropped when the index changed (another process committed),
   * and the least recently used of it past its limits. */
  #sync(): void {
    const version = (this.#version.get() as { data_version: number }).data_version;
    if (version === this.#keptVersion) {
      this.#kept.endQuery();
      this.#heads.trim();
      this.#near.trim();
      this.#inbound.trim();
      this.#described.trim();
      this.#postings.trim();
      return;
    }
    this.#kept.clear();
    this.#heads.clear();
    this.#near.clear();
    this.#inbound.clear();
    this.#icons = null;
    this.#siteNames = null;
    this.#passageRows = null;
    this.#described.clear();
    this.#speller.clear();
    this.#stage = this.#postings.refresh() ? this.#postings : this.#fts;
    this.#keptVersion = version;
  }

  /** The sites the query names (site-hints.ts), its words that name them no longer searched when
   * other words are left; null when it names none. */
  #siteHinted(parsed: ParsedQuery): Set<string> | null {
    this.#siteNames ??= siteNames(this.#sitePages.hosts(this.#keptVersion));
    const hints = siteHints(parsed.concepts, this.#siteNames);
    if (!hints.size || realConcepts(parsed).length <= hints.size) return null;
    const hosts = new Set<string>();
    for (const [i, named] of hints) {
      (parsed.concepts[i] as Concept).stop = true;
      for (const h of named) hosts.add(h);
    }
    return hosts;
  }

  /**
   * The page of results asked for (`offset`, `limit`), and where the next one starts when there is
   * one. The first CANDIDATES pages of the first stage are re-ranked as ever; deeper results come
   * from its next pages (up to DEEP_CANDIDATES), re-ranked among themselves and listed after them,
   * so the first pages are what they would be alone and consecutive pages neither overlap nor
   * leave a result out. A site filter chooses the candidates (SitePages), so a site whose pages
   * rank below others' still fills its pages.
   */
  #search(asking: Asking): { results: SearchResult[]; next?: { offset: number } } {
    const { req, concepts } = asking;
    const offset = req.offset ?? 0;
    const end = offset + req.limit;
    const allowed = this.#sitePages.allowed(req, this.#keptVersion);
    // Up to one result past the page: whether it exists says whether a next page does.
    const listed: Candidate[] = [];
    const seen = new Set<string>();
    const list = (ranked: readonly Candidate[]) => {
      for (const c of ranked) {
        if (listed.length > end) return;
        if (seen.has(c.url)) continue;
        seen.add(c.url);
        listed.push(c);
      }
    };
    const head = this.#reranked(asking, CANDIDATES, null, allowed, end + 1);
    list(head.ranked);
    if (listed.length <= end && head.more) list(this.#reranked(asking, DEEP_CANDIDATES, head.ids, allowed, Infinity).ranked);
    const results = this.#snippets(listed.slice(offset, end), concepts);
    return listed.length > end && end < MAX_DEPTH ? { results, next: { offset: end } } : { results };
  }

  /**
   * The first stage's `k` best pages (of those `allowed`) without those of a block before them
   * (`skip`), re-ranked, best first; those holding less than half of the query left out. The first
   * block (`skip` null) also takes in the pages that define what was typed. `ids`: every page the
   * block looked at; `more`: whether the first stage may hold more pages than `k`. The list is in
   * its exact order as far as its first `wanted` addresses (answer-scores.ts), which is as far as a
   * page of results reads it; past them, in an order close to it.
   */
  #reranked(
    asking: Asking,
    k: number,
    skip: ReadonlySet<number> | null,
    allowed: AllowedPages | null,
    wanted: number,
  ): { ranked: Candidate[]; ids: Set<number>; more: boolean } {
    const { req, typed, concepts, joins, question, sites } = asking;
    const first = this.#stage.rank(concepts, joins, k, allowed);
    const more = first.length >= k;
    // BM25 is scaled by the best page's, the same for every block.
    const max = first[0]?.s ?? 0;
    const rows = skip ? first.filter((r) => !skip.has(r.id)) : first;
    // Pages that define what was typed join the candidates even when BM25 ranked them low.
    const heads = queryHeads(typed);
    if (question >= QUESTION_FROM) heads.push(...questionHeads(concepts, heads, question));
    const definers = this.#definersOf(heads);
    // For a question, the pages whose definitions are for what it asks join them too.
    const described = question >= QUESTION_FROM && this.#stage === this.#postings ? this.#described.pages(concepts, DESCRIBED_PAGES) : null;
    const known = new Set<number>();
    for (const r of rows) known.add(r.id);
    // For a question, the hubs that hold it best: candidates, and among the pages whose sites say
    // which manual it is about (for every block alike).
    const hubs = this.#hubsFor(asking, first, allowed);
    // What does not read as a question: the sites the first stage's best keep coming back to, and
    // the best pages of a site holding the pages that hold all of it far beyond chance.
    const focused = skip ? [] : this.#focusedSites(asking, first, k, allowed);
    // The pages holding all of the query (HOLDING_PAGES at most), walked once for the two below that read them.
    let holders: Uint32Array | null | undefined;
    const held = () => (holders === undefined ? (holders = this.#stage.holdingAll(HOLDING_PAGES)) : holders);
    const holding = skip ? [] : this.#onHoldingSite(asking, first, k, allowed, focused, held);
    // For a query that is one identifier, how much of its words each page holding it uses.
    const about = skip ? null : this.#aboutIdentifier(asking, first, k, allowed, held);
    // And the best pages in the language asked for, when the first stage's best are in others, the
    // best pages of the sites its best keep coming back to, and for a question those of its hubs' site.
    const widened = skip
      ? []
      : [
          ...this.#inLanguage(asking, first, k, allowed),
          ...this.#onFocusedSites(asking, focused),
          ...this.#onHubsSite(asking, first, k, allowed, hubs),
          ...holding,
          ...hubs,
          ...(about
            ? bestIds(
                [...about].map(([id, s]) => ({ id, s })),
                IDENTIFIER_CANDIDATES,
              )
            : []),
        ];
    if (!skip) {
      const joining: number[] = [];
      for (const id of [...definers.joining, ...(described?.keys() ?? []), ...widened]) {
        if (known.has(id) || (allowed && !allowed[id])) continue;
        joining.push(id);
        known.add(id);
      }
      // With the score the first stage gives them: a page below its best has its words all the same.
      const scores = this.#stage.scores(joining);
      for (const id of joining) rows.push({ id, s: scores.get(id) ?? 0 });
    }
    if (!rows.length) return { ranked: [], ids: known, more };
    // Coverage counts for the head of the list, for definers and for the pages that widened the candidates.
    const covers =
      concepts.length > 1
        ? this.#stage.covering([...rows.slice(0, FEATURE_DEPTH).map((r) => r.id), ...definers.joining, ...widened])
        : null;
    // The pages whose sites say what the query is about: the first stage's best, a question's hubs,
    // and those of a site holding the query beyond chance.
    const sample = [...new Set([...first.slice(0, SITE_SAMPLE).map((r) => r.id), ...hubs, ...holding])];
    const signals = this.#signalsOf([...rows, ...sample.map((id) => ({ id }))]);
    // The candidates that have every word of the query near one of their index anchors (decision 0081).
    const near = this.#near.of([...new Set(concepts.flatMap((c) => c.parts))], rows, (id) => signals.get(id)?.nearSignature ?? null);
    const linked = this.#inbound.holdingAll(concepts, rows);
    // The names of a dotted name's namespace that the definers and the head of the list define.
    const namespaces = concepts.flatMap((c) => (c.namespace === null ? [] : [c.namespace]));
    const siblings = namespaces.length
      ? this.#siblings.shares(namespaces, [...new Set([...rows.slice(0, FEATURE_DEPTH).map((r) => r.id), ...definers.joining])])
      : null;
    // How much of the query each candidate holds: its definitions count in that share, and a page
    // holding less than half of the query is no answer (below).
    const matched = this.#stage.matched(rows.map((r) => r.id));
    // How much of an identifier's words each candidate uses on their own: read off the holders'
    // where they were measured (a page using any holds the identifier, so is one of them).
    const wordsUsed =
      about ??
      (this.#stage === this.#postings
        ? this.#postings.wordsUsed(
            oneIdentifier(asking),
            rows.map((r) => r.id),
          )
        : null);
    // A definition answers a question about its own manual: its worth counts in the measure the
    // sample's pages are on its site (twice their share, at most 1), so a question about
    // PostgreSQL is not answered by a Python definition that uses its words.
    const sampled = new Set(sample);
    const sampleUrls = sample.map((id) => signals.get(id)?.url ?? '');
    const onSites = described?.size ? recurringHostShares(sampleUrls) : null;
    // How many of the sample's pages are on each candidate's site (itself counted), and how much
    // that says the query is about the site.
    const onSite = hostCounts(sampleUrls);
    const v = this.#keptVersion;
    const focusOn = sampleFocus(
      onSite,
      sample.length,
      (host) => this.#sitePages.pagesOf(host, v).length,
      this.#sitePages.pageCount(v),
      HOLDING_SURPRISE,
    );
    const scored: Scored[] = [];
    for (const r of rows) {
      const p = signals.get(r.id);
      if (!p) continue;
      const c: Candidate = {
        id: r.id,
        bm25: r.s,
        coversAll: covers ? covers.has(r.id) : true,
        title: p.title,
        headings: p.headings,
        url: p.url,
        langShares: p.langShares,
        markupLang: p.markupLang,
        urlLang: p.urlLang,
        inlinks: p.inlinks,
        defines: definers.defines(r.id),
        definesIndexed: definers.indexed(r.id),
        nearAnchors: near.has(r.id) ? 1 : 0,
        linkContext: linked.has(r.id) ? 1 : 0,
        held: matched ? (matched.get(r.id) ?? 0) : 1,
        passage: 0,
        linkShare: 0,
        described: described?.has(r.id) ? (described.get(r.id) as number) * Math.min(1, 2 * (onSites?.get(p.host) ?? 0)) : 0,
        authority: p.authority,
        onNamedSite: sites?.has(p.host) ? 1 : 0,
        siteFocus: focusOn(p.host, (onSite.get(p.host) ?? 0) + (sampled.has(r.id) ? 0 : 1)),
        siblings: siblings?.get(r.id) ?? 0,
        wordsUsed: wordsUsed?.get(r.id) ?? 0,
        fields: p.fields,
      };
      const indexed = headingIndexBytes(p.fields);
      const base = baseScore(c, concepts, req.language, max, question);
      // Ranking may have made the page's heading index, which is kept with its fields: counted
      // with them once, when it is made.
      if (headingIndexBytes(p.fields) !== indexed) this.#kept.resize(r.id);
      scored.push({ c, base, bound: 0, s: base, group: c.id, sure: true });
    }
    // Nothing is better than noise: a page holding less than half of the query's words is no answer,
    // unless one of its definitions is for what a question asks (its words are the corpus's, not
    // the page's: `trim` for `str.rstrip`).
    const listable = (c: Candidate) => !matched || (matched.get(c.id) ?? 0) >= MIN_MATCHED || c.described > 0;
    // What answers a question, each candidate's best passage and what the links to it say, for the
    // candidates it can lift onto the page asked for; copies are one address, listed when the copy
    // shown is, and any of them may be.
    const worth = this.#stage === this.#postings ? questionWorth(this.#postings.worth(), asking.values) : null;
    if (worth) {
      const groups = copiesByLanguage(
        scored.map((x) => x.c),
        req.language,
      );
      for (const x of scored) x.group = groups.get(x.c.id)?.id ?? x.c.id;
      const unsure = new Set(scored.filter((x) => !listable(x.c)).map((x) => x.group));
      const candidates = scored.map((x) => x.c.id);
      const passages = this.#postings.passageBounds(candidates, worth);
      const links = this.#inbound.shareBounds(concepts, candidates, worth);
      scored.forEach((x, k) => {
        x.sure = !unsure.has(x.group);
        x.bound = answerScore({ passage: passages[k] as number, linkShare: links[k] as number }, question);
      });
      addAnswerScores(scored, question, wanted, (among) => {
        const passages = this.#postings.passageShares(
          among.map((x) => x.c.id),
          worth,
        );
        const links = this.#inbound.shares(
          concepts,
          among.map((x) => x.c),
          worth,
        );
        for (const { c } of among) {
          c.passage = passages.get(c.id) ?? 0;
          c.linkShare = links.get(c.id) ?? 0;
        }
      });
    }
    scored.sort(byScore);
    // One of several copies of a page under other languages' addresses stands for them all (the
    // list it goes into keeps the first of each address).
    const copies = copiesByLanguage(
      scored.map((x) => x.c),
      req.language,
    );
    const ranked: Candidate[] = [];
    for (const { c } of scored) {
      const shown = copies.get(c.id) ?? c;
      if (listable(shown)) ranked.push(shown);
    }
    return { ranked, ids: known, more };
  }

  /**
   * The first stage's best pages in the language asked for (LANGUAGE_CANDIDATES of them), when
   * fewer than that many are among its best `k` pages of any language (`first`): those are then
   * all there, and otherwise some may rank below many pages in other languages that hold the
   * query's words as well (decision 0123).
   */
  #inLanguage(asking: Asking, first: readonly Ranked[], k: number, allowed: AllowedPages | null): number[] {
    // Fewer than k pages: every page holding a word of the query is there.
    if (first.length < k) return [];
    const pages = this.#languagePages.of(asking.req.language, this.#keptVersion, allowed);
    let there = 0;
    for (const r of first) if (pages[r.id]) there++;
    if (there >= LANGUAGE_CANDIDATES) return [];
    return this.#stage.rank(asking.concepts, asking.joins, LANGUAGE_CANDIDATES, pages).map((r) => r.id);
  }

  /**
   * The sites that FOCUS_PAGES or more of the first stage's best `k` (`first`) are on, the
   * FOCUSED_SITES such sites with most of them: a query's words on a site about them may be on its
   * page that answers below many pages of other sites that hold them more often (decision 0123).
   * None for a question, whose manual `described` finds, nor with a site filter, which chose the
   * candidates' sites already.
   */
  #focusedSites(asking: Asking, first: readonly Ranked[], k: number, allowed: AllowedPages | null): string[] {
    if (first.length < k || allowed || asking.question >= QUESTION_FROM) return [];
    return focusedHosts(
      this.#sitePages.hostsOf(
        first.map((r) => r.id),
        this.#keptVersion,
      ),
      FOCUS_PAGES,
      FOCUSED_SITES,
    );
  }

  /**
   * The first stage's best pages (SITE_CANDIDATES) on each of the `focused` sites (#focusedSites),
   * and when those are not all in the language asked for, its best pages in that language as well:
   * a manual in many languages holds an identifier's page in each of them, alike but for its
   * language, and the asker's may be below twenty others (decision 0170).
   */
  #onFocusedSites(asking: Asking, focused: readonly string[]): number[] {
    const v = this.#keptVersion;
    const out: number[] = [];
    if (!focused.length) return out;
    const own = this.#languagePages.of(asking.req.language, v, null);
    for (const host of focused) {
      const pages = this.#sitePages.allowed({ sites: [host] }, v) as AllowedPages;
      const best = this.#stage.rank(asking.concepts, asking.joins, SITE_CANDIDATES, pages);
      for (const r of best) out.push(r.id);
      // Fewer than SITE_CANDIDATES: every page of the site holding a word of the query is there.
      if (best.length < SITE_CANDIDATES || best.every((r) => own[r.id])) continue;
      // Its pages in the language scored, as #onHubsSite scores a site's (a manual's pages in one
      // language are hundreds or a few thousand, where the first stage filtered to them would walk
      // every posting of the query's words again).
      const scores = this.#stage.scores(this.#sitePages.pagesOf(host, v).filter((id) => own[id]));
      const inLanguage = bestIds(
        [...scores].map(([id, s]) => ({ id, s })),
        SITE_CANDIDATES,
      );
      const listed = new Set(out);
      for (const id of inLanguage) if (!listed.has(id)) out.push(id);
    }
    return out;
  }

  /**
   * The best pages by the first stage's score (SITE_CANDIDATES) among those holding all of the
   * query on the site that holds far more of them than chance would (sites.ts surprisingHost,
   * HOLDING_SURPRISE; decision 0167), and as many of those in the language asked for (0170), unless
   * it is one of the `focused` sites the first stage's best come back to (#onFocusedSites takes
   * those in).
   * Among a million pages a handbook's pair of rare words (`resize2fs b384c441`) is held by a few
   * dozen of its pages, one in each of its languages, and by a hundred shorter distractors, each on
   * a site of its own, and BM25 puts every distractor above the handbook's pages. Not for a
   * question, whose everyday words many pages of any site hold, nor with a site filter.
   */
  #onHoldingSite(
    asking: Asking,
    first: readonly Ranked[],
    k: number,
    allowed: AllowedPages | null,
    focused: readonly string[],
    holders: () => Uint32Array | null,
  ): number[] {
    if (first.length < k || allowed || asking.question >= QUESTION_FROM) return [];
    const held = holders();
    if (!held?.length) return [];
    const v = this.#keptVersion;
    const hosts = this.#sitePages.hostsOf(Array.from(held), v);
    const size = (host: string) => this.#sitePages.pagesOf(host, v).length;
    const host = surprisingHost(hosts, size, this.#sitePages.pageCount(v), FOCUS_PAGES, HOLDING_SURPRISE);
    if (host === null || focused.includes(host)) return [];
    const scores = this.#stage.scores(Array.from(held).filter((_, i) => hosts[i] === host));
    const ranked = [...scores].map(([id, s]) => ({ id, s }));
    // And its best in the language asked for, as #onFocusedSites takes them.
    const own = this.#languagePages.of(asking.req.language, v, null);
    const inLanguage = bestIds(
      ranked.filter((r) => own[r.id]),
      SITE_CANDIDATES,
    );
    return [...new Set([...bestIds(ranked, SITE_CANDIDATES), ...inLanguage])];
  }

  /**
   * For a query that is one identifier, how much of its words each page holding it uses beyond it
   * (postings.ts wordsUsed(); those using none left out), when the first stage's best `k` are not
   * all of those holding it; null otherwise. The IDENTIFIER_CANDIDATES using most join the
   * candidates. Among a million pages a manual's rare name (`lo_import_with_oid`) is held by a
   * hundred shorter distractors too, each naming it once, and BM25 puts them above the long page
   * about it; that page says its words (`lo_import`, `OID`) again and again.
   */
  #aboutIdentifier(
    asking: Asking,
    first: readonly Ranked[],
    k: number,
    allowed: AllowedPages | null,
    holders: () => Uint32Array | null,
  ): Map<number, number> | null {
    if (first.length < k || allowed || this.#stage !== this.#postings) return null;
    const identifiers = oneIdentifier(asking);
    if (!identifiers.length) return null;
    const held = holders();
    return held?.length ? this.#postings.wordsUsed(identifiers, Array.from(held)) : null;
  }

  /**
   * For a question, the first stage's best pages (QUESTION_SITE_CANDIDATES) on the site that
   * FOCUS_PAGES or more of its `hubs` are on (the one with most), when fewer than FOCUS_PAGES of the
   * first stage's best `k` (`first`) are there (decision 0166). Among a million pages those best
   * are on sites of their own, thousands of which use a question's everyday words more often than
   * the manual's page that answers it; the manual the question is about is where its hubs are.
   * Where the first stage did find that site's pages, its best there are among them, and listing
   * them again would only reorder what it found: a page a widening run lists has its coverage
   * looked at beyond FEATURE_DEPTH, so for `log messages to a file` (its hubs are Python's) the
   * library's logging pages rose above the logging cookbook. Not with a site filter, which chose
   * the candidates' sites already.
   */
  #onHubsSite(asking: Asking, first: readonly Ranked[], k: number, allowed: AllowedPages | null, hubs: readonly number[]): number[] {
    if (first.length < k || allowed || asking.question < QUESTION_FROM) return [];
    const [host] = focusedHosts(this.#sitePages.hostsOf(hubs, this.#keptVersion), FOCUS_PAGES, 1);
    if (host === undefined) return [];
    const found = this.#sitePages.hostsOf(
      first.map((r) => r.id),
      this.#keptVersion,
    );
    if (found.filter((h) => h === host).length >= FOCUS_PAGES) return [];
    // Each of the site's pages scored, not the first stage run again over every posting with the
    // site as its filter: a manual is a few thousand pages, a question's everyday words' lists
    // among a million pages hold hundreds of thousands. A copy of the site's array: the stage
    // remembers what it worked out for an array it is asked about again (the hubs), and a site's
    // pages are not kept that way.
    const scores = this.#stage.scores([...this.#sitePages.pagesOf(host, this.#keptVersion)]);
    return bestIds(
      [...scores].map(([id, s]) => ({ id, s })),
      QUESTION_SITE_CANDIDATES,
    );
  }

  /**
   * The hubs that best answer a question (HUB_CANDIDATES of them, of those `allowed`): the pages
   * the index links to most, by their first-stage score over that of its best page (`first`'s
   * first) plus HUB_WEIGHT times the log of their authority (decision 0139). Among a million
   * pages, thousands use a question's everyday words (`delete`, `empty`, `directory`) more often
   * than the manual's reference page that answers it, and the re-ranking, which weighs authority
   * for a question, would never see that page. Not for what does not read as a question: a name
   * is answered by the page that defines it, which need not be a hub.
   */
  #hubsFor(asking: Asking, first: readonly Ranked[], allowed: AllowedPages | null): number[] {
    if (!first.length || asking.question < QUESTION_FROM || this.#stage !== this.#postings) return [];
    const max = (first[0] as Ranked).s;
    const hubs = this.#hubPages.of(this.#keptVersion, allowed);
    const scores = this.#stage.scores(hubs.ids);
    const best: Ranked[] = [];
    hubs.ids.forEach((id, i) => {
      const s = scores.get(id);
      if (s !== undefined) best.push({ id, s: s / max + HUB_WEIGHT * Math.log(hubs.authority[i] as number) });
    });
    return bestIds(best, HUB_CANDIDATES);
  }

  /** The pages defining the query's heads (Definers), a page's definition weight times the
   * head's: as a definition (a heading or a name an index anchor stands beside is none), and as
   * one an index anchor marks (decision 0080); a word of the block an anchor opens counts as
   * marked, at PASSAGE_WEIGHT. */
  #definersOf(heads: readonly DefinitionHead[]): Definers {
    const scratch = this.#defScratch;
    scratch.next();
    const touched: number[] = [];
    for (const h of heads) {
      let pages = this.#heads.use(h.head);
      if (!pages) this.#heads.set(h.head, (pages = definerList(this.#definers.all(h.head) as DefRow[])));
      scratch.fit(pages.most);
      const { ids, weights, factors, kinds } = pages;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        const kind = kinds[i] as number;
        const w = (weights[i] as number) * h.weight * (factors[i] as number);
        if (scratch.seen[id] !== scratch.stamp) {
          scratch.seen[id] = scratch.stamp;
          scratch.defines[id] = 0;
          scratch.indexed[id] = 0;
          touched.push(id);
        }
        if (!(kind & DEF_BESIDE)) scratch.defines[id] = Math.max(scratch.defines[id] as number, w);
        if (kind & DEF_INDEXED) scratch.indexed[id] = Math.max(scratch.indexed[id] as number, w);
      }
    }
    const strength = (id: number) => Math.max(scratch.defines[id] as number, scratch.indexed[id] as number);
    let chosen = touched;
    if (touched.length > MAX_DEFINERS) {
      // The strongest, the first pages of equals: those at least as strong as the MAX_DEFINERS-th, sorted.
      const strengths = new Float64Array(touched.length);
      for (let i = 0; i < touched.length; i++) strengths[i] = strength(touched[i] as number);
      strengths.sort();
      const least = strengths[strengths.length - MAX_DEFINERS] as number;
      chosen = touched
        .filter((id) => strength(id) >= least)
        .sort((a, b) => strength(b) - strength(a) || a - b)
        .slice(0, MAX_DEFINERS);
    }
    return { joining: chosen, defines: (id) => scratch.definesOf(id), indexed: (id) => scratch.indexedOf(id) };
  }

  /** Ranking signals of the candidates: from memory, read (and parsed) once per page and index version. */
  #signalsOf(rows: readonly { id: number }[]): AskedOften<number, Signals> {
    const missing: number[] = [];
    for (const r of rows) if (!this.#kept.get(r.id)) missing.push(r.id);
    if (missing.length) for (const row of this.#signals.all(ids(missing)) as SignalRow[]) this.#kept.offer(row.id, signalsOf(row));
    return this.#kept;
  }

  /** Snippets from the passages prepared at index time (decisions 0017, 0082), the one for each
   * page that the postings say holds the most of the query (0018), anywhere in the page; from the page's text on the FTS5 path
   * and for a page indexed before passages existed. */
  #snippets(top: readonly Candidate[], concepts: readonly Concept[]): SearchResult[] {
    const best = this.#stage === this.#postings ? this.#postings.bestPassages(top.map((c) => c.id)) : null;
    // Of each page's best blocks, the best one that is a snippet passage (not a heading that
    // repeats the title, not too short).
    const passages = best ? this.#passagesOf(best) : new Map<number, Passage>();
    // Each page's snippet when no passage holds the query; a page indexed before passages existed
    // has none, and its snippet comes from its text.
    const fallbacks =
      best && top.length
        ? new Map((this.#fallbacks.all(ids(top.map((c) => c.id))) as { id: number; text: string }[]).map((r) => [r.id, r.text]))
        : null;
    const fromText = top.filter((c) => !fallbacks?.has(c.id));
    const content = fromText.length
      ? new Map(
          (this.#content.all(ids(fromText.map((c) => c.id))) as { id: number; body: string; description: string }[]).map((r) => [
            r.id,
            // Its text as this version keeps it, or in `body` as a version before did.
            { ...r, body: r.body || (this.#text.whole(r.id) ?? '').slice(0, SNIPPET_SCAN) },
          ]),
        )
      : null;
    return top.map((c) => {
      const text = content?.get(c.id);
      const passage = passages.get(c.id);
      let snippet: string;
      if (text) snippet = makeSnippet(text.body, text.description, concepts, c.title);
      else if (passage) snippet = passageSnippet(passage, concepts);
      else snippet = fallbacks?.get(c.id) ?? '';
      const result: SearchResult = { url: c.url, title: c.title, snippet };
      const language = pageLanguage(c.langShares, c.markupLang);
      if (language) result.language = language;
      const section = this.#kept.get(c.id)?.section;
      if (section?.length) result.section = [...section];
      const favicon = this.#iconOf(c.url);
      if (favicon) result.favicon = favicon;
      return result;
    });
  }

  /** Each page's passage for its snippet: the first of its best blocks (`best`, best first) that is
   * a passage, worked out from the few blocks of its text read (decision 0085), or read as rows
   * for a page stored by a version before (decision 0017). */
  #passagesOf(best: Map<number, number[]>): Map<number, Passage> {
    const passages = new Map<number, Passage>();
    this.#passageRows ??= this.#anyPassageRow.get() !== undefined;
    if (this.#passageRows) {
      // The best block is read first, the next ones only for a page whose best block is none.
      const read = (wanted: number[]) => {
        if (!wanted.length) return;
        const found = new Map((this.#passages.all(ids(wanted)) as (Passage & { id: number })[]).map((r) => [r.id, r]));
        for (const [id, ords] of best) {
          if (passages.has(id)) continue;
          const first = ords.map((ord) => found.get(id * PASSAGE_SLOTS + ord)).find((p) => p !== undefined);
          if (first) passages.set(id, { block: first.block, extra: first.extra });
        }
      };
      read([...best].flatMap(([id, ords]) => (ords.length ? [id * PASSAGE_SLOTS + (ords[0] as number)] : [])));
      read([...best].flatMap(([id, ords]) => (passages.has(id) ? [] : ords.slice(1).map((ord) => id * PASSAGE_SLOTS + ord))));
    }
    // The best block first (with the two after it: a short block is shown with them), the next
    // ones only for a page whose best block is none.
    for (let turn = 0; ; turn++) {
      const spans = new Map<number, [number, number]>();
      for (const [id, ords] of best) {
        const ord = ords[turn];
        if (ord !== undefined && !passages.has(id)) spans.set(id, [ord, ord + 2]);
      }
      if (!spans.size) break;
      for (const [id, read] of this.#text.blocks(spans)) {
        // As when passages were prepared at index time: of the page's first PASSAGE_SLOTS blocks.
        const blocks: Blocks = (i) => (i < PASSAGE_SLOTS ? read(i) : undefined);
        const passage = passageAt(blocks, (spans.get(id) as [number, number])[0], (this.#kept.get(id)?.title ?? '').toLowerCase());
        if (passage) passages.set(id, passage);
      }
    }
    return passages;
  }

  /** The icon the index holds for a result's site (none fetched at query time). */
  #iconOf(url: string): string | null {
    if (!this.#icons) this.#icons = new Map((this.#sites.all() as { host: string; icon: string }[]).map((r) => [r.host, r.icon]));
    if (!this.#icons.size) return null;
    const host = /^https?:\/\/([^/?#]+)/i.exec(url)?.[1];
    return (host && this.#icons.get(host)) || null;
  }

  count(): number {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM pages').get() as { n: number }).n;
  }

  close(): void {
    this.#speller.close();
    this.#postings.close();
    this.#db.close();
  }
}
