import type { DatabaseSync } from 'node:sqlite';
import { openDatabase, type Migration } from '#shared/sqlite.ts';
import { FTS_TOKENIZE } from './tokenizer.ts';

/** described_terms' tokenizer: its rows are the index's terms already (FTS_TOKENIZE's tokens,
 * folded and stemmed), which this splits and leaves as they are, so that a question's terms match
 * them as they match the postings. */
const DEFINITION_TOKENIZE = 'unicode61 remove_diacritics 2';

/**
 * The search index's own SQLite file (DATA_DIR/index.db by default), apart from the service's
 * database so that it can be rebuilt, copied or deleted on its own. Append-only migrations.
 *
 * pages    one row per canonical page; `key` is the normalised address without its scheme
 * aliases  every address a page was fetched or declared under -> the page (how variants collapse)
 * links    outgoing links of each page with their anchor text, by target address
 * defs     definition heads (see definitions.ts) -> the pages that define them
 * fts      the full-text rows, contentless: the searchable token streams of each page's fields
 * signals  per page, what the ranking reads of a candidate (address, title, headings and their
 *          words, language, inlinks, a signature of its words near index anchors); what every
 *          reader reads of every page (hosts, languages, the hubs' authority) in narrow indexes of
 *          their own (signals_hosts, signals_languages, signals_authority)
 * passages snippet passages of each page's text, id = page id * PASSAGE_SLOTS + block number, as
 *          an index from before decision 0085 kept them (snippet.ts passageAt works them out now)
 * page_text  each page's text, in chunks of blocks (page-text.ts)
 * snippet_fallback  per page, the snippet shown when no passage holds the query
 * page_terms  per page, its number of terms (read by every reader), and in an index from before
 *          decision 0085 the distinct terms it holds
 * page_term_lists  per page, the distinct terms it holds, packed (packed-text.ts; to update postings)
 * postings    per term, the pages holding it and its field-weighted frequency there, and for a list
 *          of PASSAGE_BLOCK postings or fewer the snippet passages holding it in each (postings.ts)
 * term_passages  per longer list and block of its postings, the snippet passages holding it in each page
 *          (postings and term_passages as POSTINGS_TABLES makes them, or as migrations 4 and 15 did)
 * term_ends   every term of the postings written backwards, to find the terms a fragment ends
 * search_meta  what the index holds in which format (`postings`: POSTINGS_FORMAT once complete)
 * sites    per host, the icon its pages declare (`<link rel=icon>`, resolved), for results' favicon
 * link_words  per word and page, which of the blocks of text the page's inbound links stand in hold
 *          the word (`blocks` by number; `mask` bit i % 31 for the i-th block of the most repeated
 *          contexts; links.context has each link's block)
 * described  per page, each definition-list term and the first words of its description (extract.ts)
 * definitions  each described definition as the query reads it: id = page id * DEFINITION_SLOTS + its
 *          place among the page's `described` rows, its name and the links naming it (descriptions.ts)
 * described_terms  each definition's document (its description and the words around the links
 *          naming it) as the index's terms, contentless, by the same id; described_vocab counts them
 * described_lists  per term that many definitions hold, their ids, packed (described-lists.ts)
 * near_words  per page, the words found within a few words after one of its index anchors
 *          (index-marks.ts NEAR_WORDS), sorted, space-separated
 * defs_staged, link_words_staged  the rows of `defs` and `link_words` a run has stored, by page,
 *          until its finish() moves them into those tables in word order (staged-rows.ts)
 *
 * pages.body is '' for a page whose text is in page_text (decision 0085); a page stored by a
 * version before has its text there, and its passages as rows.
 *
 * defs.kind says where a definition stands (DEF_INDEXED, DEF_BESIDE, DEF_PASSAGE, DEF_NEAR); signals.section is the
 * page's section path as JSON (trail.ts); signals.authority its PageRank (authority.ts), the average page 1.
 */
export const PASSAGE_SLOTS = 4096;
/** Ids of one page's definitions (`definitions`, `described_terms`): extract.ts keeps at most
 * 5,000 described definitions a page. */
export const DEFINITION_SLOTS = 8192;
/** search_meta `definitions`: the stored definitions' count and most links, once finish() has
 * stored the definitions of every page (until then, a reader works them out from `described`). */
export const DEFINITIONS_META = 'definitions';
/** search_meta `described_lists`: `{ from }`, the fewest definitions a term's list is stored packed
 * for in `described_lists` (described-lists.ts), as they stand with described_terms. */
export const DESCRIBED_LISTS_META = 'described_lists';
export const FTS_COLUMNS = ['title', 'headings', 'url', 'terms', 'anchors', 'body'] as const;
/** Field weights of the first-stage BM25, in the order of FTS_COLUMNS. */
export const FIELD_WEIGHTS: Readonly<Record<(typeof FTS_COLUMNS)[number], number>> = {
  title: 8,
  headings: 3,
  url: 4,
  terms: 5,
  anchors: 2,
  body: 1,
};

/** defs.kind: how the page marks what it defines (page-definitions.ts, where it is worked out). */
export { DEF_BESIDE, DEF_INDEXED, DEF_PASSAGE } from '../page-definitions.ts';
/** defs.kind in an index from before `near_words` (schema 12): a word found within a few words
 * after an index anchor (index-marks.ts NEAR_WORDS). Alone (weight 0) it is no definition at all,
 * only what the `nearAnchors` ranking feature reads. */
export const DEF_NEAR = 8;
/** search_meta `near_words`: every page's words near its index anchors are in `near_words`, none
 * in `defs` (until then, a reader finds them there). */
export const NEAR_WORDS_META = 'near_words';
/** search_meta `near_signatures`: every page of `near_words` has the signature of its words in
 * `signals.near_signature` (until then, a reader reads the words of every candidate). */
export const NEAR_SIGNATURES_META = 'near_signatures';
/** The most bits of a page's near words' signature (word-signature.ts signatureOf): over the dev
 * queries at 10⁶ pages of the scale corpus, 3.8 % of the candidates' checks passed a signature of
 * 1,024 bits a page, 2.1 % one of 2,048, 8.3 % one of 512 (decision 0155). */
export const NEAR_SIGNATURE_BITS = 1024;

/**
 * A migration of the index, with `readerStandIn` where an index built before it can be read as it
 * is: SQL that a reader runs on its own connection to stand in for what the migration adds (empty
 * temporary tables in place of new ones). A published generation is immutable and never migrated
 * (decision 0094): with stand-ins for every migration since it was built, it keeps answering until
 * the next `npm run index` builds a new one; without, it is refused (readAsCurrent).
 */
type IndexMigration = Migration & { readerStandIn?: string };

/** The indexes of `signals` that the reads of every page go through (migration 16), by name, with
 * their columns. */
export const SIGNALS_INDEXES: Readonly<Record<string, string>> = {
  signals_hosts: 'url',
  signals_languages: 'markup_lang, url_lang, lang_shares',
  signals_authority: 'authority',
};

export const indexMigrations: readonly IndexMigration[] = [
  {
    version: 1,
    name: 'search index',
    up: `
      CREATE TABLE pages (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        title TEXT NOT NULL,
        description TEXT NOT NULL,
        headings TEXT NOT NULL,
        terms TEXT NOT NULL,
        body TEXT NOT NULL,
        lang TEXT,
        lang_shares TEXT NOT NULL,
        markup_lang TEXT,
        url_lang TEXT,
        inlinks INTEGER NOT NULL DEFAULT 0,
        indexed_at INTEGER NOT NULL
      );
      CREATE TABLE aliases (
        key TEXT PRIMARY KEY,
        page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE
      );
      CREATE INDEX aliases_page ON aliases(page_id);
      CREATE TABLE links (
        source_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        target_key TEXT NOT NULL,
        text TEXT NOT NULL
      );
      CREATE INDEX links_source ON links(source_id);
      CREATE INDEX links_target ON links(target_key);
      CREATE TABLE dirty (page_id INTEGER PRIMARY KEY);
      CREATE TABLE defs (
        head TEXT NOT NULL,
        page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        weight REAL NOT NULL,
        PRIMARY KEY (head, page_id)
      ) WITHOUT ROWID;
      CREATE INDEX defs_page ON defs(page_id);
      CREATE VIRTUAL TABLE fts USING fts5(
        ${FTS_COLUMNS.join(', ')},
        content = '', contentless_delete = 1,
        tokenize = '${FTS_TOKENIZE}'
      );`,
  },
  {
    version: 2,
    name: 'search signals',
    // What ranking reads of every candidate, in a narrow table: the same columns sat behind the
    // long body in `pages`, so each read walked the body's overflow pages.
    up: `
      CREATE TABLE signals (
        id INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        title TEXT NOT NULL,
        headings TEXT NOT NULL,
        lang_shares TEXT NOT NULL,
        markup_lang TEXT,
        url_lang TEXT,
        inlinks INTEGER NOT NULL
      );
      INSERT INTO signals SELECT id, url, title, headings, lang_shares, markup_lang, url_lang, inlinks FROM pages;`,
  },
  {
    version: 3,
    name: 'search snippet passages',
    // Snippet passages prepared at index time (decision 0017). Existing pages are marked dirty, so
    // the next `npm run index` prepares theirs; until then the reader builds their snippets from
    // the page text as before (a page without a snippet_fallback row).
    up: `
      CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        block TEXT NOT NULL,
        extra TEXT
      );
      CREATE TABLE passage_words (
        page_id INTEGER NOT NULL,
        word TEXT NOT NULL,
        ords TEXT NOT NULL,
        PRIMARY KEY (page_id, word)
      ) WITHOUT ROWID;
      CREATE TABLE snippet_fallback (
        id INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
        text TEXT NOT NULL
      );
      INSERT OR IGNORE INTO dirty (page_id) SELECT id FROM pages;`,
  },
  {
    version: 4,
    name: 'search postings',
    // The first stage's own postings (decision 0018), which also tell which snippet passages hold
    // a term (so passage_words goes), and the words of each page's title, address and headings
    // as ranking reads them (rank.ts), prepared with its signals. They are complete once search_meta says so; the next `npm
    // run index` builds them for an existing index, and until then queries run on FTS5 and take
    // their snippets from the page text.
    up: `
      CREATE TABLE page_terms (
        page_id INTEGER PRIMARY KEY,
        length INTEGER NOT NULL,
        terms TEXT NOT NULL
      );
      CREATE TABLE postings (
        term TEXT PRIMARY KEY,
        data BLOB NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE term_ends (
        reversed TEXT PRIMARY KEY
      ) WITHOUT ROWID;
      CREATE TABLE search_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
      DROP TABLE passage_words;
      ALTER TABLE signals ADD COLUMN rank_words TEXT NOT NULL DEFAULT '';`,
  },
  {
    version: 5,
    name: 'search definition kinds, sections and site icons',
    // Where each definition stands (index anchors; decision 0080), each page's section
    // path and each site's icon (docs/api.md). Existing rows keep kind 0, no section and no icon:
    // such an index answers as before, without the new fields, until the next `npm run index` of
    // its sources fills them.
    up: `
      ALTER TABLE defs ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE signals ADD COLUMN section TEXT NOT NULL DEFAULT '';
      ALTER TABLE pages ADD COLUMN section TEXT NOT NULL DEFAULT '';
      CREATE TABLE sites (
        host TEXT PRIMARY KEY,
        icon TEXT NOT NULL
      ) WITHOUT ROWID;`,
  },
  {
    version: 6,
    name: 'search inbound link contexts',
    // The words around each link (decision 0081), and for each page the words around the links
    // pointing at it. Existing links have no context: such an index answers as before until the
    // next `npm run index` of its sources fills them.
    up: `
      ALTER TABLE links ADD COLUMN context TEXT NOT NULL DEFAULT '';
      CREATE TABLE link_words (
        head TEXT NOT NULL,
        page_id INTEGER NOT NULL,
        mask INTEGER NOT NULL,
        PRIMARY KEY (head, page_id)
      ) WITHOUT ROWID;
      CREATE INDEX link_words_page ON link_words(page_id);`,
  },
  {
    version: 7,
    name: 'search page authority',
    // Each page's PageRank over the links between pages (authority.ts, decision 0082), the average
    // page 1. Existing pages read 1 (no page above another) until the next `npm run index`.
    up: `ALTER TABLE signals ADD COLUMN authority REAL NOT NULL DEFAULT 1;`,
  },
  {
    version: 8,
    name: 'search inbound link blocks',
    // Which of a page's inbound link contexts hold each word, by number (decision 0082): `mask` has
    // the first contexts only, folded into 31 bits. Existing rows have none, and answer as before
    // until the next `npm run index` (the postings format changed with it, so every page is redone).
    up: `ALTER TABLE link_words ADD COLUMN blocks BLOB;`,
  },
  {
    version: 9,
    name: 'search definition descriptions',
    // Each definition-list term of a page with the first words of its description (decision 0082,
    // descriptions.ts). An existing index has none, and answers as before until the next `npm run
    // index` of its sources stores its pages again.
    up: `
      CREATE TABLE described (
        page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        term TEXT NOT NULL,
        words TEXT NOT NULL
      );
      CREATE INDEX described_page ON described(page_id);`,
    readerStandIn: 'CREATE TEMP TABLE described (page_id INTEGER NOT NULL, term TEXT NOT NULL, words TEXT NOT NULL)',
  },
  {
    version: 10,
    name: 'search text packed',
    // A page's text in chunks that snippets read a few blocks of (page-text.ts), no longer in
    // `pages.body` and again as snippet passages; and its list of terms packed, apart from the
    // term counts that every reader scans (decision 0085). Existing pages keep theirs as they are,
    // read as before, until `npm run index` writes them again.
    up: `
      CREATE TABLE page_text (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL
      );
      CREATE TABLE page_term_lists (
        page_id INTEGER PRIMARY KEY,
        terms BLOB NOT NULL
      );`,
    readerStandIn: `CREATE TEMP TABLE page_text (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TEMP TABLE page_term_lists (page_id INTEGER PRIMARY KEY, terms BLOB NOT NULL);`,
  },
  {
    version: 11,
    name: 'search definition documents',
    // Each described definition's document stored in the index's terms, so that a question reads
    // the lists of its own words only, rather than every definition and every link naming one at
    // the first question (decision 0122). Detail none: a question asks which definitions hold a
    // term, never where or how often. An existing index has none until the next `npm run index`
    // stores them (search_meta DEFINITIONS_META), and works them out at its first question as before.
    up: `
      CREATE TABLE definitions (
        id INTEGER PRIMARY KEY,
        term TEXT NOT NULL,
        links INTEGER NOT NULL
      );
      CREATE VIRTUAL TABLE described_terms USING fts5(terms, content = '', contentless_delete = 1, detail = none,
        tokenize = '${DEFINITION_TOKENIZE}');
      CREATE VIRTUAL TABLE described_vocab USING fts5vocab(described_terms, row);`,
    readerStandIn: `CREATE TEMP TABLE definitions (id INTEGER PRIMARY KEY, term TEXT NOT NULL, links INTEGER NOT NULL);
      CREATE VIRTUAL TABLE temp.described_terms USING fts5(terms, content = '', contentless_delete = 1, detail = none,
        tokenize = '${DEFINITION_TOKENIZE}');
      CREATE VIRTUAL TABLE temp.described_vocab USING fts5vocab(temp, described_terms, row);`,
  },
  {
    version: 12,
    name: 'search words near index anchors by page',
    // A page's words near its index anchors in one row, read for a query's candidates, in place of
    // a `defs` row each (at 10⁵ pages, 10.4 of 21.7 million rows were nothing else; decision 0122). The next
    // `npm run index` moves an existing index's (search_meta NEAR_WORDS_META); until then, and in
    // a published generation, a reader finds them in `defs`.
    up: `
      CREATE TABLE near_words (
        page_id INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
        words TEXT NOT NULL
      );`,
    readerStandIn: 'CREATE TEMP TABLE near_words (page_id INTEGER PRIMARY KEY, words TEXT NOT NULL)',
  },
  {
    version: 13,
    name: 'search rows staged in page order',
    // The rows of `defs` and `link_words` a run stores, kept in page order until its finish()
    // moves them into their tables in word order (staged-rows.ts, decision 0124). No reader reads
    // them: an older index has none, and the stand-in is nothing.
    up: `
      CREATE TABLE defs_staged (
        page_id INTEGER NOT NULL,
        head TEXT NOT NULL,
        weight REAL NOT NULL,
        kind INTEGER NOT NULL,
        PRIMARY KEY (page_id, head)
      ) WITHOUT ROWID;
      CREATE TABLE link_words_staged (
        page_id INTEGER NOT NULL,
        head TEXT NOT NULL,
        mask INTEGER NOT NULL,
        blocks BLOB,
        PRIMARY KEY (page_id, head)
      ) WITHOUT ROWID;`,
    readerStandIn: '',
  },
  {
    version: 14,
    name: 'search definition lists packed',
    // The definitions holding each common term in a row of their own, packed, read in place of
    // FTS5's list of them (decision 0131). An existing index has none until the next `npm run
    // index` stores them (search_meta DESCRIBED_LISTS_META), and reads FTS5 as before.
    up: `
      CREATE TABLE described_lists (
        term TEXT PRIMARY KEY,
        ids BLOB NOT NULL
      ) WITHOUT ROWID;`,
    readerStandIn: 'CREATE TEMP TABLE described_lists (term TEXT PRIMARY KEY, ids BLOB NOT NULL)',
  },
  {
    version: 15,
    name: 'search passages apart from the postings',
    // The passage numbers of each posting list longer than PASSAGE_BLOCK, that many postings a
    // row (packed-postings.ts), so that the first stage reads and keeps a long list's pages and
    // frequencies only, and the passages of the pages it asks about by block (POSTINGS_FORMAT 4,
    // decision 0132). An index from before keeps its passages in its lists (format 3) until the
    // next `npm run index` writes them apart.
    up: `
      CREATE TABLE term_passages (
        term TEXT NOT NULL,
        block INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (term, block)
      ) WITHOUT ROWID;`,
    readerStandIn:
      'CREATE TEMP TABLE term_passages (term TEXT NOT NULL, block INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, block))',
  },
  {
    version: 16,
    name: 'search signals read through narrow indexes',
    // What a reader reads of every page once per index version (site-pages.ts the hosts,
    // language-pages.ts the languages, hub-pages.ts the hubs), each from an index of its own
    // columns rather than from the whole rows of `signals`, about 700 bytes a page: from a cold
    // disk cache, a fresh service's warm-up read the table three times over (decision 0152). An
    // index from before answers as it did, scanning the table. (If not there already, as in an
    // index whose recorded version was set back.)
    up: Object.entries(SIGNALS_INDEXES)
      .map(([name, columns]) => `CREATE INDEX IF NOT EXISTS ${name} ON signals (${columns});`)
      .join('\n'),
    readerStandIn: '',
  },
  {
    version: 17,
    name: 'search signatures of the words near index anchors',
    // A small signature of each page's words near its index anchors in its signals, which a query
    // reads for each of its candidates already, so that it reads the `near_words` row (1.6 KB a
    // page at 10⁶ pages) only of a candidate that may have the query's words (at 10⁶, a tenth of a
    // known item's candidates and 2 % of a natural question's; decision 0155). The next `npm run
    // index` signs an existing index's (search_meta NEAR_SIGNATURES_META); until then, and in a
    // published generation, a reader reads the rows, the column standing in as a view of the table
    // with it empty.
    up: 'ALTER TABLE signals ADD COLUMN near_signature BLOB',
    readerStandIn: 'CREATE TEMP VIEW signals AS SELECT *, NULL AS near_signature FROM main.signals',
  },
];

/** The blocks of inbound link context a page keeps (link_words.mask has a bit for each, modulo). */
export const CONTEXT_BITS = 31;
/** The distinct contexts of inbound links whose blocks `link_words.mask` folds in, most linked first. */
export const MAX_CONTEXTS = 200;
/** The blocks of inbound link context a page keeps by number (`link_words.blocks`, uint16 each). */
export const MAX_LINK_BLOCKS = 4000;

/**
 * The postings' tables as the writer makes them each time it builds every list anew
 * (postings-writer.ts reset(), decision 0145): rowid tables whose keys are in an index of their
 * own. Migrations 4 and 15 made them WITHOUT ROWID, each list in its key's record, and to place or
 * find a term SQLite reads the whole record of every key it compares with on the way down, overflow
 * pages and all (at 10⁶ pages, over half of the writer's thread while it wrote the postings); here
 * it compares the short records of the index, then goes to the list by its rowid. An index whose
 * lists were built before keeps those tables until they are built anew, and answers and takes new
 * pages as it did: the same statements read and write both.
 */
export const POSTINGS_TABLES = `
  CREATE TABLE postings (term TEXT NOT NULL, data BLOB NOT NULL);
  CREATE UNIQUE INDEX postings_by_term ON postings (term);
  CREATE TABLE term_passages (term TEXT NOT NULL, block INTEGER NOT NULL, data BLOB NOT NULL);
  CREATE UNIQUE INDEX term_passages_by_term ON term_passages (term, block);`;

export function openIndexDatabase(file: string): DatabaseSync {
  return openDatabase(file, indexMigrations);
}

/**
 * Makes an index that a reader cannot migrate (a published generation) read as this code's
 * schema, on `db` alone: nothing to do for one of this schema, the stand-ins of every migration
 * since for an older one that has them; any other is refused with what to do about it.
 */
export function readAsCurrent(db: DatabaseSync): void {
  const built = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const known = indexMigrations.at(-1)?.version ?? 0;
  if (built === known) return;
  const missing = indexMigrations.filter((m) => m.version > built);
  if (built > known || missing.some((m) => m.readerStandIn === undefined))
    throw new Error(
      built < known
        ? `the index was built by an older Periscope (index schema ${built}, this one reads ${known}): run npm run index again to build a new one`
        : `the index was built by a newer Periscope (index schema ${built}, this one reads ${known}): upgrade this node`,
    );
  for (const m of missing) db.exec(m.readerStandIn as string);
}
