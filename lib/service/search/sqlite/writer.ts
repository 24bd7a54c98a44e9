import type { DatabaseSync } from 'node:sqlite';
import type { FinishStep, IndexWriter, UpsertOutcome } from '../backend.ts';
import { LinkList, pageRank } from '../authority.ts';
import type { PageDocument } from '../document.ts';
import { preferredUrl } from '../url.ts';
import { signatureOf } from '../word-signature.ts';
import { snippetFallback } from '../snippet.ts';
import type { BuiltDefinition, BuiltPage } from './page-build.ts';
import { storeDescribedLists } from './described-lists.ts';
import { commitThenCheckpoint } from './commit-then-checkpoint.ts';
import { PageBuilds } from './page-builds.ts';
import { PageText } from './page-text.ts';
import { sortingInParallel } from './parallel-sort.ts';
import { PostingsWriter } from './postings-writer.ts';
import { StagedRows, type StagedRow } from './staged-rows.ts';
import {
  DEF_NEAR,
  DEFINITION_SLOTS,
  DEFINITIONS_META,
  DESCRIBED_LISTS_META,
  NEAR_SIGNATURE_BITS,
  NEAR_SIGNATURES_META,
  NEAR_WORDS_META,
  openIndexDatabase,
  PASSAGE_SLOTS,
} from './schema.ts';

/** Pages stored per transaction while reading: each commit writes every database page the batch
 * dirtied to the write-ahead log. At 10⁵ pages, 1,000 a commit read 15 % faster than 200, and the
 * run took 9 % less in all, with the same index (decision 0127). */
const BATCH = 1000;
/** Pages stored per transaction in finish(): each commit writes every database page it dirtied,
 * so ten times as many pages a commit dirty fewer database pages each; at 10,000 pages the storing
 * step took 5 % less, and adding the link words alone, then at random places of their table, 26 %
 * (decision 0117; they are staged in page order since 0124). A run stopped in between builds
 * those pages again. */
const BUILD_BATCH = 2000;
/** SQLite's page cache while indexing, for the index and for its temporary tables (the pages'
 * pending term lists, the new terms; the postings' runs have a database and a cache of their own,
 * posting-runs.ts), in KiB. SQLite's default, 2 MB, made every store into a table larger than
 * that (the definitions, the inbound link words) a read of the file: a 10,000-page index took
 * 30% longer. Filled only as far as the index is large. */
const CACHE_KB = 512 * 1024;
const TEMP_CACHE_KB = 256 * 1024;

/** Link targets the writer remembers having marked (#touch): a site's pages link to the same few
 * hundred pages, its navigation, again and again. */
const TOUCHED_KEPT = 65_536;
/** Pages signed (#signNearWords) between two words to `progress`: at 10⁶ pages, about a second. */
const SIGNED_BETWEEN_PROGRESS = 10_000;

const hostOf = (url: string): string => new URL(url).host;

function prepare(db: DatabaseSync) {
  return {
    byKey: db.prepare('SELECT id, url FROM pages WHERE key = ?'),
    aliasPage: db.prepare('SELECT page_id AS id FROM aliases WHERE key = ?'),
    insert: db.prepare(`INSERT INTO pages (key, url, title, description, headings, terms, body, lang, lang_shares, markup_lang, url_lang,
      indexed_at, section) VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?) RETURNING id`),
    update: db.prepare(`UPDATE pages SET url = ?, title = ?, description = ?, headings = ?, terms = ?, body = '', lang = ?, lang_shares = ?,
      markup_lang = ?, url_lang = ?, indexed_at = ?, section = ? WHERE id = ?`),
    site: db.prepare('INSERT INTO sites (host, icon) VALUES (?, ?) ON CONFLICT(host) DO UPDATE SET icon = excluded.icon'),
    alias: db.prepare('INSERT INTO aliases (key, page_id) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET page_id = excluded.page_id'),
    oldTargets: db.prepare('SELECT DISTINCT target_key AS k FROM links WHERE source_id = ?'),
    dropLinks: db.prepare('DELETE FROM links WHERE source_id = ?'),
    link: db.prepare('INSERT INTO links (source_id, target_key, text, context) VALUES (?, ?, ?, ?)'),
    dropLinkWords: db.prepare('DELETE FROM link_words WHERE page_id = ?'),
    dropDescribed: db.prepare('DELETE FROM described WHERE page_id = ?'),
    described: db.prepare('INSERT INTO described (page_id, term, words) VALUES (?, ?, ?)'),
    definitionIds: db.prepare('SELECT id FROM definitions WHERE id BETWEEN ? AND ?'),
    dropDefinitionTerms: db.prepare('DELETE FROM described_terms WHERE rowid = ?'),
    dropDefinitions: db.prepare('DELETE FROM definitions WHERE id BETWEEN ? AND ?'),
    definition: db.prepare('INSERT INTO definitions (id, term, links) VALUES (?, ?, ?)'),
    definitionTerms: db.prepare('INSERT INTO described_terms (rowid, terms) VALUES (?, ?)'),
    definitionsMeta: db.prepare(`SELECT value FROM search_meta WHERE key = '${DEFINITIONS_META}'`),
    describedListsMeta: db.prepare(`SELECT value FROM search_meta WHERE key = '${DESCRIBED_LISTS_META}'`),
    setDefinitionsMeta: db.prepare(`INSERT OR REPLACE INTO search_meta (key, value)
      SELECT '${DEFINITIONS_META}', json_object('count', COUNT(*), 'most', COALESCE(MAX(links), 0)) FROM definitions`),
    dirtyDescribed: db.prepare('INSERT OR IGNORE INTO dirty (page_id) SELECT DISTINCT page_id FROM described'),
    dropDefs: db.prepare('DELETE FROM defs WHERE page_id = ?'),
    near: db.prepare('INSERT OR REPLACE INTO near_words (page_id, words) VALUES (?, ?)'),
    dropNear: db.prepare('DELETE FROM near_words WHERE page_id = ?'),
    nearMeta: db.prepare(`SELECT value FROM search_meta WHERE key = '${NEAR_WORDS_META}'`),
    setNearByPage: db.prepare(`INSERT OR REPLACE INTO search_meta (key, value) VALUES ('${NEAR_WORDS_META}', 'by page')`),
    sign: db.prepare('UPDATE signals SET near_signature = ? WHERE id = ?'),
    signedMeta: db.prepare(`SELECT value FROM search_meta WHERE key = '${NEAR_SIGNATURES_META}'`),
    nearAll: db.prepare('SELECT page_id AS id, words FROM near_words ORDER BY page_id'),
    nearLast: db.prepare('SELECT max(page_id) AS id FROM near_words'),
    setSigned: db.prepare(`INSERT OR REPLACE INTO search_meta (key, value) VALUES ('${NEAR_SIGNATURES_META}', 'signed')`),
    anyPage: db.prepare('SELECT 1 FROM pages LIMIT 1'),
    dirty: db.prepare('INSERT OR IGNORE INTO dirty (page_id) VALUES (?)'),
    dirtyEvery: db.prepare('INSERT OR IGNORE INTO dirty (page_id) SELECT id FROM pages'),
    dirtyAll: db.prepare('SELECT page_id AS id FROM dirty ORDER BY page_id'),
    dirtyCount: db.prepare('SELECT COUNT(*) AS n FROM dirty'),
    clean: db.prepare('DELETE FROM dirty WHERE page_id = ?'),
    bodyMoved: db.prepare("UPDATE pages SET body = '' WHERE id = ? AND body != ''"),
    setInlinks: db.prepare('UPDATE pages SET inlinks = ? WHERE id = ?'),
    signals: db.prepare(`INSERT OR REPLACE INTO signals (id, url, title, headings, lang_shares, markup_lang, url_lang, inlinks, rank_words,
      section, near_signature) SELECT id, url, title, headings, lang_shares, markup_lang, url_lang, inlinks, ?, section, ? FROM pages WHERE id = ?`),
    ftsDelete: db.prepare('DELETE FROM fts WHERE rowid = ?'),
    ftsInsert: db.prepare('INSERT INTO fts (rowid, title, headings, url, terms, anchors, body) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    dropPassages: db.prepare('DELETE FROM passages WHERE id BETWEEN ? AND ?'),
    fallback: db.prepare('INSERT OR REPLACE INTO snippet_fallback (id, text) VALUES (?, ?)'),
    dropFallback: db.prepare('DELETE FROM snippet_fallback WHERE id = ?'),
    pageIds: db.prepare('SELECT id FROM signals ORDER BY id'),
    edges: db.prepare('SELECT l.source_id AS s, a.page_id AS t FROM links l JOIN aliases a ON a.key = l.target_key'),
    setAuthority: db.prepare('UPDATE signals SET authority = ? WHERE id = ? AND authority != ?'),
  };
}

type Statements = ReturnType<typeof prepare>;

/**
 * Adds pages to the SQLite index. Pages are stored at once; their postings (postings-writer.ts),
 * which include the anchor text of links from other pages, are rebuilt in finish() for every page
 * that changed or gained or lost inbound links, so pages may arrive in any order. A page stays
 * marked (`dirty`) until the transaction that writes its postings, and so does a page that gains
 * or loses an inbound link, from the transaction that changes the link: a run stopped while reading
 * or in finish() leaves every page it changed marked, with the term lists its postings were built
 * from, and the next run completes them.
 *
 * The FTS5 table is written only with `fullText` (decision 0085): no query reads it once the
 * postings are complete, and it was a tenth of the index. Its rows are what an index from before
 * the postings answers from; the tests compare the postings with them, and the bench times FTS5's
 * bm25() on them as the straight SQLite path. Without `fullText`, finish() empties the table, so an
 * index from before sheds them at its next run.
 */
export class SqliteIndexWriter implements IndexWriter {
  readonly #db: DatabaseSync;
  readonly #own: boolean;
  readonly #seen = new Set<number>();
  /** Link targets this run has marked already (#touch), the last TOUCHED_KEPT at most, so that
   * each is looked up about once. */
  readonly #touched = new Set<string>();
  #pending = 0;
  readonly #q: Statements;
  readonly #text: PageText;
  readonly #postings: PostingsWriter;
  /** The rows of `defs` and `link_words` this run stores, merged into them by finish(). */
  readonly #defs: StagedRows;
  readonly #linkWords: StagedRows;
  readonly #fullText: boolean;
  readonly #threads: number;
  readonly #batch: number;
  readonly #buildBatch: number;

  /** `postingsBuffer`: new postings entries held in memory at most (postings-writer.ts).
   * `fullText`: keep FTS5 rows of every page as well (the reference the postings are checked against).
   * `threads`: threads that build pages in finish() beside this one (page-builds.ts; 0: this one),
   *   and that sort the staged rows into their tables (parallel-sort.ts).
   * `batch`: pages upsert() stores per transaction (BATCH).
   * `buildBatch`: pages finish() stores per transaction (BUILD_BATCH). */
  constructor(
    fileOrDb: string | DatabaseSync,
    options: { postingsBuffer?: number; fullText?: boolean; threads?: number; batch?: number; buildBatch?: number } = {},
  ) {
    this.#fullText = options.fullText ?? false;
    this.#threads = options.threads ?? 0;
    this.#batch = options.batch ?? BATCH;
    this.#buildBatch = options.buildBatch ?? BUILD_BATCH;
    this.#own = typeof fileOrDb === 'string';
    this.#db = typeof fileOrDb === 'string' ? openIndexDatabase(fileOrDb) : fileOrDb;
    this.#db.exec(`PRAGMA cache_size = -${CACHE_KB}; PRAGMA temp.cache_size = -${TEMP_CACHE_KB}`);
    this.#q = prepare(this.#db);
    // A new index keeps each page's words near its index anchors in a row of their own, and signs
    // them as finish() builds the page: it has both from the start, and finish() has nothing to
    // upgrade (#moveNearWords, #signNearWords).
    if (!this.#q.anyPage.get()) {
      if (!this.#q.nearMeta.get()) this.#q.setNearByPage.run();
      if (!this.#q.signedMeta.get()) this.#q.setSigned.run();
    }
    this.#text = new PageText(this.#db);
    this.#postings = new PostingsWriter(this.#db, { bufferedEntries: options.postingsBuffer });
    this.#defs = new StagedRows(this.#db, {
      table: 'defs',
      staged: 'defs_staged',
      pageIndex: 'defs_page',
      columns: ['weight', 'kind'],
      // As a page's heads were added before they were staged.
      onConflict: 'UPDATE SET weight = max(weight, excluded.weight), kind = kind | excluded.kind',
    });
    this.#linkWords = new StagedRows(this.#db, {
      table: 'link_words',
      staged: 'link_words_staged',
      pageIndex: 'link_words_page',
      columns: ['mask', 'blocks'],
    });
  }

  /** How many pages are marked to be built in finish() now: before a run reads, those a run
   * stopped part-way left (finish() builds them with the pages this run stores). */
  unfinished(): number {
    return (this.#q.dirtyCount.get() as { n: number }).n;
  }

  /** Whether finish() first brings an index an older version wrote up to this one's (its
   * 'upgrade' step): once, for such an index only. */
  upgrading(): boolean {
    return !this.#q.nearMeta.get() || !this.#q.signedMeta.get();
  }

  upsert(doc: PageDocument): UpsertOutcome {
    return this.#batched(() => this.#store(doc), this.#batch);
  }

  /** Runs `work` in the open transaction, opening one if none is, and commits every `batch` calls. */
  #batched<T>(work: () => T, batch = this.#batch): T {
    if (this.#pending === 0) this.#db.exec('BEGIN IMMEDIATE');
    const out = work();
    if (++this.#pending >= batch) this.#commit();
    return out;
  }

  #commit(): void {
    if (this.#pending === 0) return;
    this.#db.exec('COMMIT');
    this.#pending = 0;
  }

  #store(doc: PageDocument): UpsertOutcome {
    const q = this.#q;
    const now = Date.now();
    const existing = q.byKey.get(doc.key) as { id: number; url: string } | undefined;
    const shares = JSON.stringify(doc.langShares);
    const body = doc.blocks.join('\n');
    const fields = [
      doc.title,
      doc.description,
      doc.headings.join('\n'),
      doc.terms.join('\n'),
      doc.lang,
      shares,
      doc.markupLang,
      doc.urlLang,
      now,
      doc.section.length ? JSON.stringify(doc.section) : '',
    ] as const;
    let id: number;
    let outcome: UpsertOutcome;
    if (existing) {
      id = existing.id;
      q.update.run(preferredUrl(doc.url, existing.url), ...fields, id);
      outcome = this.#seen.has(id) ? 'merged' : 'replaced';
      for (const r of q.oldTargets.all(id) as { k: string }[]) this.#touch(r.k);
      q.dropLinks.run(id);
    } else {
      id = (q.insert.get(doc.key, doc.url, ...fields) as { id: number }).id;
      outcome = 'added';
    }
    this.#seen.add(id);
    // Its text and snippet read the page alone, so they are stored now, while the main thread
    // waits on the threads that parse pages, rather than in finish(), which nothing runs beside.
    this.#storeText(id, { description: doc.description, body });
    for (const k of doc.aliasKeys) q.alias.run(k, id);
    for (const l of doc.links) {
      q.link.run(id, l.key, l.text, l.context ?? '');
      this.#touch(l.key);
    }
    this.#storeDefinitions(id, doc);
    q.dropDescribed.run(id);
    for (const d of doc.described ?? []) q.described.run(id, d.term, d.words);
    if (doc.icon) q.site.run(hostOf(doc.url), doc.icon);
    q.dirty.run(id);
    return outcome;
  }

  /** Marks the page a link points to, which gains or loses that link's anchor text, in the
   * transaction that changes the link: a run stopped before finish() leaves it marked. A target
   * not in the index yet is built when it comes, as every page this run stores is. */
  #touch(key: string): void {
    if (this.#touched.has(key)) return;
    // Only a shortcut (marking a page twice changes nothing), so it is bounded rather than grown
    // to every target of a million pages' links.
    if (this.#touched.size >= TOUCHED_KEPT) this.#touched.clear();
    this.#touched.add(key);
    const row = this.#q.aliasPage.get(key) as { id: number } | undefined;
    if (row) this.#q.dirty.run(row.id);
  }

  /** The page's definitions (page-definitions.ts), worked out where its document was built, and
   * its words near an index anchor, a row of `near_words` (and their signature in its signals,
   * which finish() writes when it builds the page). */
  #storeDefinitions(id: number, doc: PageDocument): void {
    const q = this.#q;
    q.dropDefs.run(id);
    this.#defs.dropPage(id);
    this.#defs.addPage(
      id,
      doc.defines.map((d) => [d.head, d.weight, d.kind]),
    );
    const near = [...new Set(doc.nearAnchors ?? [])].sort();
    if (near.length) q.near.run(id, near.join(' '));
    else q.dropNear.run(id);
  }

  finish(progress?: (step: FinishStep, done: number, total: number) => void): void {
    // The pages read are committed first: a finish() that fails rolls back only its own work.
    this.#commit();
    try {
      this.#finish(progress);
    } catch (err) {
      this.#abandon();
      throw err;
    }
  }

  /**
   * After a finish() that failed part-way (a full disk, a building thread that died): what it had
   * not committed is rolled back and the postings writer forgets what it had gathered, so that
   * finish() can run again on this writer from what is committed, as a new run would (the pages
   * it had not completed are still marked).
   */
  #abandon(): void {
    if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    this.#db.exec('PRAGMA foreign_keys = ON');
    this.#pending = 0;
    this.#postings.discard();
    this.#postings.release();
  }

  #finish(progress?: (step: FinishStep, done: number, total: number) => void): void {
    const q = this.#q;
    this.#batched(() => {
      this.#touched.clear();
      // Postings missing (an index from before them) or in another format: built again for all.
      if (this.#postings.stale()) {
        this.#postings.reset();
        q.dirtyEvery.run();
      }
      // Definitions not stored yet (an index from before them): stored for every page with some.
      if (!q.definitionsMeta.get()) q.dirtyDescribed.run();
      // What an index from before them lacks and this run works out once from what it holds (at
      // 10⁶ pages the signatures take over a minute, decision 0155).
      // upgrading() says whether the step is told at all; the two metas choose its work.
      const upgrading = this.upgrading();
      const moving = !q.nearMeta.get();
      const signing = !q.signedMeta.get();
      if (upgrading) progress?.('upgrade', 0, 1);
      if (moving) this.#moveNearWords();
      if (signing) this.#signNearWords(progress && ((done, total) => progress('upgrade', done, total)));
      if (upgrading) progress?.('upgrade', 1, 1);
    });
    this.#commit();
    // The postings' runs, released by the last finish(), are taken again.
    this.#postings.open();
    const ids = (q.dirtyAll.all() as { id: number }[]).map((r) => r.id);
    // Threads are started only for work: a run that changed nothing has none to build.
    const builds = ids.length ? new PageBuilds(this.#db, { threads: this.#threads, fullText: this.#fullText }) : null;
    try {
      let done = 0;
      for (const page of builds?.pages(ids) ?? []) {
        this.#batched(() => this.#storeBuilt(page), this.#buildBatch);
        progress?.('text', ++done, ids.length);
      }
    } finally {
      builds?.close();
    }
    // Foreign keys go unchecked while the postings and the staged rows go in: each staged row is of
    // a page this run or a stopped one stored, and a page gone since has dropped its own
    // (#storeBuilt). Checked, each `defs` row looked its page up: at 10⁵ pages merging them took
    // 62.5 s, unchecked 36.5 s (decision 0127). The setting takes only outside a transaction, so
    // the last pages built are committed first.
    this.#commit();
    this.#db.exec('PRAGMA foreign_keys = OFF');
    this.#batched(() => this.#postings.flush(progress && ((done, total) => progress('terms', done, total))));
    // Committed before the words are merged (decision 0130), for the disk and for the reads: the
    // postings' runs (20 GB at 10⁶ pages) are deleted once their lists are, and the lists (14 GB
    // in the write-ahead log) are copied into the index by the checkpoint after the commit, so the
    // log is written from its start again and the merges' reads do not look through them (every
    // page read looks through the log's frames, decision 0118). The runs go before that checkpoint,
    // not after, so the disk never holds them, the log and the index grown by it at once (decision
    // 0140). A run stopped here leaves the pages marked, with the postings and term lists they were
    // built from, as a run stopped in the text.
    commitThenCheckpoint(
      this.#db,
      () => this.#commit(),
      () => this.#postings.release(),
    );
    this.#batched(() => {
      // The rows this run (or one stopped before it) stored, into their tables in word order: two
      // sorts of every row, sorted by as many helper threads as the pages were built by (decision
      // 0142; at 10⁵ pages 25 million rows).
      progress?.('words', 0, 1);
      sortingInParallel(this.#db, this.#threads, () => {
        this.#defs.merge();
        this.#linkWords.merge();
      });
      progress?.('words', 1, 1);
    });
    this.#commit();
    this.#db.exec('PRAGMA foreign_keys = ON');
    progress?.('rank', 0, 1);
    this.#batched(() => {
      // The pages are done only with their postings and the ranks their links give: a run stopped
      // before leaves them marked for the next, which builds their postings again.
      if (ids.length) this.#rankPages();
      for (const id of ids) q.clean.run(id);
      // Every page's definitions are stored now, and the reader's counts change with them, and the
      // common terms' packed lists (decision 0131).
      if (ids.length || !q.definitionsMeta.get() || !q.describedListsMeta.get()) {
        q.setDefinitionsMeta.run();
        storeDescribedLists(this.#db);
      }
    });
    this.#commit();
    progress?.('rank', 1, 1);
    progress?.('optimise', 0, 1);
    this.#db.exec(this.#fullText ? "INSERT INTO fts(fts) VALUES ('optimize')" : "INSERT INTO fts(fts) VALUES ('delete-all')");
    this.#db.exec('PRAGMA optimize');
    progress?.('optimise', 1, 1);
  }

  /** The words near index anchors that an index from before `near_words` keeps in `defs` (kind
   * DEF_NEAR), moved to a row a page; a page this run stored has its row, and none there. */
  #moveNearWords(): void {
    this.#db.exec(`
      INSERT OR REPLACE INTO near_words (page_id, words)
        SELECT page_id, group_concat(head, ' ' ORDER BY head) FROM defs WHERE kind & ${DEF_NEAR} GROUP BY page_id;
      DELETE FROM defs WHERE kind = ${DEF_NEAR} AND weight = 0;
      UPDATE defs SET kind = kind & ~${DEF_NEAR} WHERE kind & ${DEF_NEAR};`);
    this.#q.setNearByPage.run();
  }

  /** The signature of every page's words near its index anchors in its signals, for an index from
   * before them (decision 0155): each `near_words` row read once, in page order, so that how far
   * the pages have come is how far the work has (`progress`, told now and then in ids of pages:
   * counting the rows first would read them twice). */
  #signNearWords(progress?: (done: number, total: number) => void): void {
    const q = this.#q;
    const last = (q.nearLast.get() as { id: number | null }).id ?? 0;
    let signed = 0;
    for (const r of q.nearAll.iterate() as Iterable<{ id: number; words: string }>) {
      q.sign.run(signatureOf(r.words.split(' '), NEAR_SIGNATURE_BITS), r.id);
      if (++signed % SIGNED_BETWEEN_PROGRESS === 0) progress?.(r.id, last);
    }
    q.setSigned.run();
  }

  /** Every page's authority (authority.ts) from the links between pages as they now stand: a page
   * that changed changes the rank of the pages it links to, and of theirs. */
  #rankPages(): void {
    const q = this.#q;
    const ids: number[] = [];
    for (const r of q.pageIds.iterate() as Iterable<{ id: number }>) ids.push(r.id);
    // Each page's place in `ids` (they are in ascending order), −1 for an id no page has.
    const dense = new Int32Array((ids.at(-1) ?? -1) + 1).fill(-1);
    ids.forEach((id, i) => (dense[id] = i));
    const links = new LinkList();
    for (const e of q.edges.iterate() as Iterable<{ s: number; t: number }>) {
      const from = dense[e.s] ?? -1;
      const to = dense[e.t] ?? -1;
      if (from >= 0 && to >= 0) links.add(from, to);
    }
    const rank = pageRank(ids.length, links);
    for (let i = 0; i < ids.length; i++) {
      // Four significant digits: a page whose rank did not move is not written again.
      const r = Number((rank[i] as number).toPrecision(4));
      q.setAuthority.run(r, ids[i] as number, r);
    }
  }

  /** Stores what finish() built of a page (page-build.ts), or drops what the index kept of it. */
  #storeBuilt(page: BuiltPage): void {
    const q = this.#q;
    const id = page.id;
    if (this.#fullText) q.ftsDelete.run(id);
    q.dropLinkWords.run(id);
    this.#linkWords.dropPage(id);
    this.#storeDescribed(id, page.gone ? [] : page.definitions);
    if (page.gone) {
      // Its definitions staged when it was stored would name a page no longer there.
      this.#defs.dropPage(id);
      this.#dropText(id);
      this.#postings.page(id, null);
      return;
    }
    if (page.oldText) {
      // A page as a version before kept it, here for its inbound links or for postings in a new
      // format: its text moves to page_text, and its passage rows go.
      this.#storeText(id, page.oldText);
      q.bodyMoved.run(id);
    }
    const { words, masks, blockCounts, blocks } = page.linkWords;
    // Each word's blocks as a view of the page's (SQLite copies what it binds): a copy of its own
    // for each of a page's two hundred rows cost a tenth of adding them.
    const rows: StagedRow[] = new Array(words.length);
    for (let k = 0, b = 0; k < words.length; k++) {
      const n = blockCounts[k] as number;
      rows[k] = [words[k] as string, masks[k] as number, new Uint8Array(blocks.buffer, blocks.byteOffset + 2 * b, 2 * n)];
      b += n;
    }
    this.#linkWords.addPage(id, rows);
    q.setInlinks.run(page.inlinks, id);
    q.signals.run(page.rankWords, page.nearSignature, id);
    if (page.fullText) q.ftsInsert.run(id, ...page.fullText);
    this.#postings.page(id, page.terms);
  }

  /** The page's described definitions as the query reads them, in place of those it had: ids
   * page × DEFINITION_SLOTS + their place, each with its document's terms (a contentless table
   * deletes a row by its id, which `definitions` keeps). */
  #storeDescribed(id: number, definitions: readonly BuiltDefinition[]): void {
    const q = this.#q;
    const lo = id * DEFINITION_SLOTS;
    for (const r of q.definitionIds.all(lo, lo + DEFINITION_SLOTS - 1) as { id: number }[]) q.dropDefinitionTerms.run(r.id);
    q.dropDefinitions.run(lo, lo + DEFINITION_SLOTS - 1);
    definitions.forEach((d, k) => {
      q.definition.run(lo + k, d.term, d.links);
      q.definitionTerms.run(lo + k, d.terms);
    });
  }

  /** The page's text (page-text.ts), from which a query's snippets are taken (decisions 0017,
   * 0082, 0085), and the snippet shown when none holds the query; the passage rows a version
   * before kept for it go. */
  #storeText(id: number, p: { description: string; body: string }): void {
    const lo = id * PASSAGE_SLOTS;
    this.#q.dropPassages.run(lo, lo + PASSAGE_SLOTS - 1);
    this.#text.write(id, p.body);
    this.#q.fallback.run(id, snippetFallback(p.body, p.description, PASSAGE_SLOTS));
  }

  #dropText(id: number): void {
    const lo = id * PASSAGE_SLOTS;
    this.#q.dropPassages.run(lo, lo + PASSAGE_SLOTS - 1);
    this.#text.drop(id);
    this.#q.dropFallback.run(id);
  }

  close(): void {
    if (this.#pending) this.#commit();
    if (this.#own) this.#db.close();
  }
}

/** Builds every page of the index in `file` again with FTS5 rows (`fullText`), which the writer
 * otherwise keeps none of: the postings are marked stale, so finish() builds all of them. For the
 * tests and the bench that compare the postings with FTS5 (decision 0085). */
export function fillFullText(file: string): void {
  const db = openIndexDatabase(file);
  db.exec("DELETE FROM search_meta WHERE key = 'postings'");
  db.close();
  const writer = new SqliteIndexWriter(file, { fullText: true });
  writer.finish();
  writer.close();
}
