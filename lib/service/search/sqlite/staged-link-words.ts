import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { LinkWords } from './page-build.ts';
import { LINK_WORDS_PAGE_INDEX } from './schema.ts';

/** With at least this share of the index's pages staged, the page index of `link_words` is built
 * again once after the rows are added, rather than kept up a row at a time. */
const REBUILD_SHARE = 0.25;

/**
 * The link words (`link_words`, schema.ts) of the pages finish() builds (writer.ts), gathered in
 * an unkeyed temporary table and put in place once, in key order, by apply(), in the transaction
 * that completes the run (decision 0087).
 *
 * `link_words` is keyed by word: a page's two hundred rows stood at two hundred random places of
 * the largest B-tree of the index, and at 10⁵ pages adding them and committing the pages they
 * dirtied took about 40 % of a run. Sorted, the rows of a new index are appended, and those of an
 * update are added in one pass through the tree. Its page index, which a page's rows went to in
 * order, would take the rows sorted by word at random places in turn: when a large share of the
 * pages is staged, it is dropped and made again from the table (SQLite sorts for that once).
 *
 * A run stopped before apply() loses the staged rows with the temporary table, and leaves their
 * pages marked for the next run to build (writer.ts): the index keeps the rows it had.
 */
export class StagedLinkWords {
  readonly #db: DatabaseSync;
  readonly #q: Record<'page' | 'row' | 'staged' | 'pages', StatementSync>;

  constructor(db: DatabaseSync) {
    this.#db = db;
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS staged_link_pages (page_id INTEGER PRIMARY KEY);
      CREATE TEMP TABLE IF NOT EXISTS staged_link_words (head TEXT NOT NULL, page_id INTEGER NOT NULL, mask INTEGER NOT NULL, blocks BLOB)`);
    this.#q = {
      page: db.prepare('INSERT OR IGNORE INTO temp.staged_link_pages (page_id) VALUES (?)'),
      row: db.prepare('INSERT INTO temp.staged_link_words (head, page_id, mask, blocks) VALUES (?, ?, ?, ?)'),
      staged: db.prepare('SELECT COUNT(*) AS n FROM temp.staged_link_pages'),
      pages: db.prepare('SELECT COUNT(*) AS n FROM pages'),
    };
  }

  /** The link words page `id` now has (none for a page gone): they replace its rows at apply(). */
  page(id: number, links: LinkWords | null): void {
    this.#q.page.run(id);
    if (!links) return;
    const { words, masks, blockCounts, blocks } = links;
    for (let k = 0, b = 0; k < words.length; k++) {
      const mine = blocks.slice(b, (b += blockCounts[k] as number));
      this.#q.row.run(words[k] as string, id, masks[k] as number, new Uint8Array(mine.buffer));
    }
  }

  /** Replaces the staged pages' rows of `link_words` with those staged, in key order, and forgets
   * them. Run it inside the transaction that marks those pages built. */
  apply(): void {
    const staged = (this.#q.staged.get() as { n: number }).n;
    if (!staged) return;
    const rebuild = staged >= REBUILD_SHARE * (this.#q.pages.get() as { n: number }).n;
    this.#db.exec('DELETE FROM link_words WHERE page_id IN (SELECT page_id FROM temp.staged_link_pages)');
    if (rebuild) this.#db.exec('DROP INDEX link_words_page');
    this.#db.exec(`INSERT INTO link_words (head, page_id, mask, blocks)
      SELECT head, page_id, mask, blocks FROM temp.staged_link_words ORDER BY head, page_id`);
    if (rebuild) this.#db.exec(LINK_WORDS_PAGE_INDEX);
    this.clear();
  }

  /** Forgets what was staged. */
  clear(): void {
    this.#db.exec('DELETE FROM temp.staged_link_words; DELETE FROM temp.staged_link_pages');
  }
}
