import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import type { Concept } from '../tokenize.ts';
import { ChunkRow } from './link-word-chunks.ts';
import { InboundLinks } from './link-words.ts';
import { openIndexDatabase, readAsCurrent } from './schema.ts';
import { linkWordsAsBefore0120 } from './test-index-before-0120.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-link-words-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Pages linking to each other with words around the links: "common" around every link, each of the
 * others around some, so that words have few pages, many, or none; in three chunks of page ids
 * (link-word-chunks.ts). */
const PAGES = 2_400;
const WORDS = ['common', 'rare', 'teal', 'ochre', 'umber'];
function page(i: number): { url: string; html: string } {
  const links = [1, 7, 31].map((step) => {
    const to = (i * step + 3) % PAGES;
    // "rare" from pages 0 and 1,000 only; "teal", "ochre" and "umber" from every 2nd, 3rd and 4th page.
    const words = WORDS.filter((_, k) => k === 0 || (k === 1 ? i % 1_000 === 0 : i % k === 0));
    return `<p>The ${words.join(' and ')} notes: see <a href="/p/${to}.html">page ${to} for ${words.join(' ')}</a>.</p>`;
  });
  return {
    url: `https://docs.test/p/${i}.html`,
    html: `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>${links.join('')}</main></body></html>`,
  };
}

const concept = (...parts: string[]): Concept => ({ parts, compound: null, stop: false });
const QUERIES: Concept[][] = [
  [concept('common')],
  [concept('common'), concept('rare')],
  [concept('teal'), concept('ochre', 'umber')],
  [concept('common'), concept('missing')],
  [concept('umber'), concept('teal'), concept('common')],
];

describe('InboundLinks: words with many pages, read for a query’s candidates only', () => {
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  for (let i = 0; i < PAGES; i++) writer.upsert(buildDocument(page(i)));
  writer.finish();
  writer.close();
  const db = openIndexDatabase(file);
  after(() => db.close());
  const pagesOf = (word: string) =>
    (db.prepare('SELECT chunk, data FROM link_word_chunks WHERE head = ?').all(word) as { chunk: number; data: Uint8Array }[]).reduce(
      (n, r) => n + new ChunkRow(r.data, r.chunk).size,
      0,
    );
  const ids = Array.from({ length: PAGES + 5 }, (_, i) => i + 1);

  /** What `reader` answers to each of QUERIES: for a query's first candidates, for a part of them
   * and pages not asked about before (as a query's later steps ask), and for every page. */
  function answers(reader: InboundLinks) {
    return QUERIES.map((concepts, q) => {
      reader.trim();
      const first = ids.filter((id) => id % (q + 2) !== 0);
      const later = ids.filter((id) => id % 3 === q % 3);
      const worth = new Map(concepts.map((_, i) => [i, 1 + i] as const));
      return {
        holding: [
          ...reader.holdingAll(
            concepts,
            first.map((id) => ({ id })),
          ),
        ].sort((a, b) => a - b),
        shares: [
          ...reader.shares(
            concepts,
            later.map((id) => ({ id })),
            worth,
          ),
        ],
        bounds: [...reader.shareBounds(concepts, ids, worth)],
      };
    });
  }

  it('answers as reading every word whole does, each call for its own candidates, query after query', () => {
    assert.ok(pagesOf('common') > 2_000 && pagesOf('rare') > 0 && pagesOf('rare') < 10, 'words with many pages and with few');
    const whole = answers(new InboundLinks(db));
    // Past 10 pages a word is read for the candidates: "common" and most others, not "rare".
    const some = answers(new InboundLinks(db, { wholeRows: 10 }));
    assert.deepEqual(some, whole);
    assert.ok(whole.reduce((n, a) => n + a.holding.length, 0) > 500, 'pages holding the words to compare');
    assert.ok((whole[0]?.shares.filter(([, s]) => s > 0).length ?? 0) > 500, 'shares to compare');
  });

  it('answers from the rows of an index from before decision 0120 as from its chunks', () => {
    const before = join(dir, 'before.db');
    db.exec(`VACUUM INTO '${before}'`);
    const old = new DatabaseSync(before);
    after(() => old.close());
    // The same link words, a row a word and page, as that index kept them, read as a published
    // generation of that schema is (the reader's stand-in for the chunks' table).
    old.exec('BEGIN');
    linkWordsAsBefore0120(old);
    old.exec('COMMIT');
    readAsCurrent(old);
    assert.ok((old.prepare('SELECT COUNT(*) AS n FROM link_words').get() as { n: number }).n > 2_000, 'rows to read');
    const chunked = answers(new InboundLinks(db));
    for (const wholeRows of [10, 2048]) assert.deepEqual(answers(new InboundLinks(old, { wholeRows })), chunked);
  });

  it('fails to answer alike when a word with many pages is read for the wrong candidates', () => {
    // The check above would see a reader that answered for the first call's candidates only.
    const some = new InboundLinks(db, { wholeRows: 10 });
    const whole = new InboundLinks(db);
    const concepts = [concept('common')];
    const worth = new Map([[0, 1]]);
    some.holdingAll(concepts, [{ id: 1 }]);
    const all = ids.map((id) => ({ id }));
    assert.deepEqual([...some.shares(concepts, all, worth)], [...whole.shares(concepts, all, worth)]);
    assert.ok([...whole.shares(concepts, all, worth).values()].filter((s) => s > 0).length > 500);
  });
});
