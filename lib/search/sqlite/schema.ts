import type { DatabaseSync } from 'node:sqlite';
import { openDatabase, type Migration } from '../../db/sqlite.ts';

/**
 * The search index's own SQLite file (DATA_DIR/index.db by default), apart from the service's
 * database so that it can be rebuilt, copied or deleted on its own. Append-only migrations.
 *
 * pages    one row per canonical page; `key` is the normalised address without its scheme
 * aliases  every address a page was fetched or declared under -> the page (how variants collapse)
 * links    outgoing links of each page with their anchor text, by target address
 * defs     definition heads (see definitions.ts) -> the pages that define them
 * fts      the full-text rows, contentless: the searchable token streams of each page's fields
 * signals  per page, what the ranking reads of a candidate (address, title, headings, language, inlinks)
 * passages snippet passages of each page's opening text, id = page id * PASSAGE_SLOTS + block number
 * passage_words  per page, each word of its passages -> the passages' numbers, so a query reads
 *          only the passages that hold one of its words
 * snippet_fallback  per page, the snippet shown when no passage holds the query
 */
export const PASSAGE_SLOTS = 4096;
export const FTS_COLUMNS = ['title', 'headings', 'url', 'terms', 'anchors', 'body'] as const;

export const indexMigrations: readonly Migration[] = [
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
        tokenize = 'porter unicode61 remove_diacritics 2'
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
];

export function openIndexDatabase(file: string): DatabaseSync {
  return openDatabase(file, indexMigrations);
}
