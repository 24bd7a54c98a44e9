import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import type { LinkWords } from './page-build.ts';
import { openIndexDatabase } from './schema.ts';
import { StagedLinkWords } from './staged-link-words.ts';

const PAGES = 12;

/** The link words of page `id` in one edition: words of their own and one every page shares. */
function wordsOf(id: number, edition: number): LinkWords {
  const words = [`shared`, `w${id}e${edition}`, `page${id}`];
  const blockCounts = Uint16Array.from(words, (_, k) => k % 3);
  const blocks = Uint16Array.from({ length: blockCounts.reduce((a, b) => a + b, 0) }, (_, i) => id * 10 + i + edition);
  return { words, masks: Int32Array.from(words, (_, k) => id + k + edition), blockCounts, blocks };
}

/** `link_words` as rows, in key order, the blocks as numbers. */
function rows(db: DatabaseSync): string[] {
  return (
    db.prepare('SELECT head, page_id, mask, blocks FROM link_words ORDER BY head, page_id').all() as {
      head: string;
      page_id: number;
      mask: number;
      blocks: Uint8Array | null;
    }[]
  ).map((r) => `${r.head} ${r.page_id} ${r.mask} ${r.blocks ? [...new Uint16Array(r.blocks.slice().buffer)].join(',') : '-'}`);
}

/** The rows the writer kept before staging: each page's, inserted one by one. */
function expected(edition: (id: number) => number | null): string[] {
  const out: string[] = [];
  for (let id = 1; id <= PAGES; id++) {
    const e = edition(id);
    if (e === null) continue;
    const w = wordsOf(id, e);
    for (let k = 0, b = 0; k < w.words.length; k++) {
      const mine = w.blocks.slice(b, (b += w.blockCounts[k] as number));
      out.push(`${w.words[k]} ${id} ${w.masks[k]} ${[...mine].join(',')}`);
    }
  }
  return out.sort((a, b) => {
    const [ha, ia] = a.split(' ');
    const [hb, ib] = b.split(' ');
    return ha === hb ? Number(ia) - Number(ib) : (ha as string) < (hb as string) ? -1 : 1;
  });
}

function indexWithPages(): DatabaseSync {
  const db = openIndexDatabase(':memory:');
  const insert = db.prepare(`INSERT INTO pages (id, key, url, title, description, headings, terms, body, lang_shares, indexed_at)
    VALUES (?, ?, ?, '', '', '', '', '', '{}', 0)`);
  for (let id = 1; id <= PAGES; id++) insert.run(id, `k${id}`, `https://t.test/${id}`);
  return db;
}

const pageIndexUsed = (db: DatabaseSync) =>
  JSON.stringify(db.prepare('EXPLAIN QUERY PLAN SELECT head FROM link_words WHERE page_id = 3').all()).includes('link_words_page');

describe('link words staged and put in place at once', () => {
  it('replaces the staged pages’ rows, drops a gone page’s, keeps the others', () => {
    for (const changed of [
      [3, 7],
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    ]) {
      // Two pages staged stay under the share at which the page index is made again; nine do not.
      const db = indexWithPages();
      const staged = new StagedLinkWords(db);
      for (let id = 1; id <= PAGES; id++) staged.page(id, wordsOf(id, 0));
      staged.apply();
      assert.deepEqual(
        rows(db),
        expected(() => 0),
      );
      const gone = changed[0] as number;
      for (const id of changed) staged.page(id, id === gone ? null : wordsOf(id, 1));
      assert.deepEqual(
        rows(db),
        expected(() => 0),
        'nothing changes before apply()',
      );
      staged.apply();
      assert.deepEqual(
        rows(db),
        expected((id) => (id === gone ? null : changed.includes(id) ? 1 : 0)),
        `${changed.length} pages staged`,
      );
      assert.ok(pageIndexUsed(db), 'the page index is there and used');
      assert.equal((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
      db.close();
    }
  });

  it('forgets what was staged on clear() and after apply()', () => {
    const db = indexWithPages();
    const staged = new StagedLinkWords(db);
    staged.page(1, wordsOf(1, 0));
    staged.clear();
    staged.apply();
    assert.deepEqual(rows(db), []);
    staged.page(2, wordsOf(2, 0));
    staged.apply();
    staged.apply();
    assert.deepEqual(
      rows(db),
      expected((id) => (id === 2 ? 0 : null)),
    );
    db.close();
  });
});
