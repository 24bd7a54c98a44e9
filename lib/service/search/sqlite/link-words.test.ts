import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import type { Concept } from '../tokenize.ts';
import { InboundLinks } from './link-words.ts';
import { openIndexDatabase } from './schema.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-link-words-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Pages linking to each other with words around the links: "common" around every link, each of the
 * others around some, so that words have few pages, many, or none. */
const PAGES = 120;
const WORDS = ['common', 'rare', 'teal', 'ochre', 'umber'];
function page(i: number): { url: string; html: string } {
  const links = [1, 7, 31].map((step) => {
    const to = (i * step + 3) % PAGES;
    // "rare" from pages 0 and 40 only; "teal", "ochre" and "umber" from every 2nd, 3rd and 4th page.
    const words = WORDS.filter((_, k) => k === 0 || (k === 1 ? i % 40 === 0 : i % k === 0));
    return `<p>The ${words.join(' and ')} notes: see <a href="/p/${to}.html">page ${to} for ${words.join(' ')}</a>.</p>`;
  });
  return {
    url: `https://docs.test/p/${i}.html`,
    html: `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>${links.join('')}</main></body></html>`,
  };
}

const concept = (...parts: string[]): Concept => ({ parts, compound: null, stop: false, namespace: null });
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
  const rows = (word: string) => (db.prepare('SELECT COUNT(*) AS n FROM link_words WHERE head = ?').get(word) as { n: number }).n;

  it('answers as reading every word whole does, each call for its own candidates, query after query', () => {
    assert.ok(rows('common') > 100 && rows('rare') > 0 && rows('rare') < 20, 'words with many pages and with few');
    const whole = new InboundLinks(db);
    // Past 10 pages a word is read for the candidates: "common" and most others, not "rare".
    const some = new InboundLinks(db, { wholeRows: 10 });
    const ids = Array.from({ length: PAGES + 5 }, (_, i) => i + 1);
    let compared = 0;
    for (const [q, concepts] of QUERIES.entries()) {
      // Candidates of the first call, then a part of them and pages not asked about before, as a
      // query's later steps ask.
      const first = ids.filter((id) => id % (q + 2) !== 0);
      const later = ids.filter((id) => id % 3 === q % 3);
      const worth = new Map(concepts.map((_, i) => [i, 1 + i] as const));
      for (const reader of [whole, some]) reader.trim();
      const answers = [whole, some].map((reader) => ({
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
      }));
      assert.deepEqual(answers[1], answers[0], `query ${q}`);
      compared += answers[0]?.holding.length ?? 0;
      if (q === 0) assert.ok((answers[0]?.shares.filter(([, s]) => s > 0).length ?? 0) > 10, 'shares to compare');
    }
    assert.ok(compared > 50, 'pages holding the words to compare');
  });

  it('fails to answer alike when a word with many pages is read for the wrong candidates', () => {
    // The check above would see a reader that answered for the first call's candidates only.
    const some = new InboundLinks(db, { wholeRows: 10 });
    const whole = new InboundLinks(db);
    const concepts = [concept('common')];
    const worth = new Map([[0, 1]]);
    some.holdingAll(concepts, [{ id: 1 }]);
    const all = Array.from({ length: PAGES }, (_, i) => ({ id: i + 1 }));
    assert.deepEqual([...some.shares(concepts, all, worth)], [...whole.shares(concepts, all, worth)]);
    assert.ok([...whole.shares(concepts, all, worth).values()].filter((s) => s > 0).length > 10);
  });

  it('keeps what it read of a word with many pages between queries, counted against its limit of bytes, until the index changes', () => {
    const concepts = [concept('common')];
    const asked = Array.from({ length: 60 }, (_, i) => ({ id: i + 1 }));
    const holding = (reader: InboundLinks, pages: readonly { id: number }[]) => reader.holdingAll(concepts, pages).size;
    const kept = new InboundLinks(db, { wholeRows: 10 });
    // Room for the word's first read (a word with many pages starts small), not for 60 pages of it.
    const small = new InboundLinks(db, { wholeRows: 10, bytes: 1000 });
    const before = holding(kept, asked);
    assert.ok(before > 20, 'pages linked to with "common" around the link');
    assert.equal(holding(small, asked), before);
    // The index changes under the readers, which have not been told yet.
    db.exec(
      "CREATE TEMP TABLE gone AS SELECT * FROM link_words WHERE head = 'common'; DELETE FROM link_words WHERE head = 'common' AND page_id <= 60",
    );
    try {
      for (const reader of [kept, small]) reader.trim();
      assert.equal(holding(kept, asked), before, 'the pages asked about before are answered from memory');
      assert.ok(holding(kept, [{ id: 61 }, { id: 80 }, { id: 100 }]) > 0, 'pages not asked about before are read');
      assert.equal(holding(small, asked), 0, 'past its limit of bytes the word was dropped, and is read again');
      kept.clear();
      assert.equal(holding(kept, asked), 0, 'read again once the index changed');
    } finally {
      db.exec('INSERT OR REPLACE INTO link_words SELECT * FROM gone; DROP TABLE gone');
    }
    assert.equal(holding(new InboundLinks(db, { wholeRows: 10 }), asked), before);
  });
});
