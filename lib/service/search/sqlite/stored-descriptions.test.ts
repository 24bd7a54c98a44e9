import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { Descriptions, type DescribedRow, type DescriptionMatch } from '../descriptions.ts';
import { packIds, storeDescribedLists } from './described-lists.ts';
import { DEFINITION_SLOTS, openIndexDatabase } from './schema.ts';
import { StoredDescriptions } from './stored-descriptions.ts';
import { FtsTokenizer } from './tokenizer.ts';

/** A small seeded generator, so that a failure is the same failure every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Stores `rows` as the index writer does (writer.ts #storeDescribed, search_meta's counts), and
 * with `packedFrom` the lists of the terms that many definitions hold packed (described-lists.ts). */
function store(db: DatabaseSync, rows: readonly DescribedRow[], packedFrom = Infinity): () => StoredDescriptions {
  const definition = db.prepare('INSERT INTO definitions (id, term, links) VALUES (?, ?, ?)');
  const terms = db.prepare('INSERT INTO described_terms (rowid, terms) VALUES (?, ?)');
  const place = new Map<number, number>();
  db.exec('BEGIN');
  for (const r of rows) {
    const k = place.get(r.page) ?? 0;
    place.set(r.page, k + 1);
    definition.run(r.page * DEFINITION_SLOTS + k, r.term, r.links);
    terms.run(r.page * DEFINITION_SLOTS + k, [...new Set(r.terms)].join(' '));
  }
  if (Number.isFinite(packedFrom)) storeDescribedLists(db, packedFrom);
  db.exec('COMMIT');
  const most = rows.reduce((a, r) => Math.max(a, r.links), 0);
  return () => new StoredDescriptions(db, { count: rows.length, most }, packedFrom);
}

/** Definitions of `pages` pages whose words are drawn as a corpus's are (a few very common, most
 * rare), some of them named by many links. */
function definitions(next: () => number, pages: number, vocabulary: number): DescribedRow[] {
  const word = () => `w${Math.floor(next() ** 3 * vocabulary)}`;
  const rows: DescribedRow[] = [];
  for (let page = 1; page <= pages; page++) {
    const n = 1 + Math.floor(next() * 6);
    for (let k = 0; k < n; k++) {
      const terms = Array.from({ length: 3 + Math.floor(next() * 30) }, word);
      rows.push({ page, term: `name${page}.${k}`, terms, links: next() < 0.2 ? Math.floor(next() ** 2 * 200) : 0 });
    }
  }
  return rows;
}

/** A question: one to six concepts, each of one or two terms, common and rare ones, some that no
 * definition holds. */
function question(next: () => number, vocabulary: number): string[][] {
  const term = () => (next() < 0.05 ? 'unheld' : `w${Math.floor(next() ** (next() < 0.5 ? 6 : 1.5) * vocabulary)}`);
  // A concept is one term, or two or three any of which stand for it (their lists' union).
  return Array.from({ length: 1 + Math.floor(next() * 6) }, () => Array.from({ length: 1 + Math.floor(next() ** 6 * 3) }, term));
}

const same = (stored: readonly DescriptionMatch[], memory: readonly DescriptionMatch[], what: string) => {
  assert.deepEqual(
    stored.map((m) => [m.page, m.term]),
    memory.map((m) => [m.page, m.term]),
    what,
  );
  stored.forEach((m, i) => assert.ok(Math.abs(m.share - (memory[i] as DescriptionMatch).share) < 1e-12, what));
};

describe('definitions as the index stores them', () => {
  // Every list read from FTS5 (an index from before the packed lists), and the lists of the terms
  // 40 or more definitions hold packed.
  for (const packedFrom of [Infinity, 40])
    it(`answer exactly as the model in memory, reading a fraction of the lists of common words (packed from ${packedFrom})`, () => {
      const next = random(7);
      const rows = definitions(next, 3000, 4000);
      const db = openIndexDatabase(':memory:');
      const stored = store(db, rows, packedFrom);
      // One reader keeps the lists it reads from question to question; a fresh one reads them.
      const reader = stored();
      const memory = new Descriptions(rows);
      assert.equal(reader.size, memory.size);
      const held = new Map<string, number>();
      for (const r of rows) for (const t of new Set(r.terms)) held.set(t, (held.get(t) ?? 0) + 1);
      let pruned = 0;
      for (let q = 0; q < 300; q++) {
        const concepts = question(next, 4000);
        for (const limit of [1, 10, 50]) {
          const expected = memory.match(concepts, limit);
          for (const r of [reader, stored()]) same(r.match(concepts, limit), expected, `${JSON.stringify(concepts)} limit ${limit}`);
          // Walking every concept's list whole would go through this many places.
          const whole = concepts.reduce((a, c) => a + c.reduce((b, t) => b + (held.get(t) ?? 0), 0), 0);
          if (reader.read < whole / 2) pruned++;
        }
      }
      // The questions with common words stopped early: without the bound, none would.
      assert.ok(pruned > 150, `${pruned} of 900 matches read less than half of what walking would`);
      // What a user typed reaches FTS5 only as a term some definition holds, quoted: quotes and
      // operators in a term are a term no definition holds, not a query of their own.
      for (const hostile of [['w1" OR "w2'], ['w1*'], ['NEAR(w1 w2)'], ['"'], ['w1) OR (w2']]) {
        const concepts = [hostile, ['w1'], ['w2']];
        same(reader.match(concepts, 10), memory.match(concepts, 10), JSON.stringify(concepts));
      }
      assert.deepEqual(reader.match([], 10), []);
      assert.deepEqual(reader.match([['w1']], 0), []);
      if (Number.isFinite(packedFrom)) {
        // The packed lists are the ones read: one emptied, its term holds no definition.
        const lists = db.prepare('SELECT count(*) AS n FROM described_lists').get() as { n: number };
        assert.ok(lists.n > 20, `${lists.n} lists packed`);
        assert.ok(stored().match([['w1'], ['w2']], 10).length > 0);
        db.prepare('UPDATE described_lists SET ids = ? WHERE term IN (?, ?)').run(packIds([]), 'w1', 'w2');
        assert.deepEqual(stored().match([['w1'], ['w2']], 10), []);
      }
      db.close();
    });

  /** A reader of `rows` asked for the 20 best pages of `alpha beta`: the model's answer, and the
   * pages `best` (each the same definition's). */
  function answersAlphaBeta(rows: DescribedRow[], best: (i: number) => number) {
    const db = openIndexDatabase(':memory:');
    const reader = store(db, rows)();
    const found = reader.match([['alpha'], ['beta']], 20);
    same(found, new Descriptions(rows).match([['alpha'], ['beta']], 20), 'alpha beta');
    assert.deepEqual(
      found.map((m) => m.page),
      Array.from({ length: 20 }, (_, i) => best(i)),
    );
    return { db, reader };
  }

  it('walk the definitions many links name first, and the others only as far as they could still rank', () => {
    // 2,000 pages define `alpha beta` and no link names them; the 20 pages that links name most
    // define it too, and they are the 20 best: the others' prior keeps them under those.
    const rows: DescribedRow[] = [];
    for (let page = 1; page <= 2020; page++)
      rows.push({ page, term: `name${page}`, terms: ['alpha', 'beta', `own${page}`], links: page % 101 === 0 ? 50 : 0 });
    const { db, reader } = answersAlphaBeta(rows, (i) => 101 * (i + 1));
    // Walked together, the two lists are 4,040 places. The 20 pages many links name are walked
    // first; the rest is not walked at all.
    assert.ok(reader.read <= 2 * 20, `${reader.read} places read`);
    // A page no link names ranks where its share puts it, when the named ones do not fill the list.
    same(reader.match([['alpha'], ['beta']], 30), new Descriptions(rows).match([['alpha'], ['beta']], 30), 'alpha beta, 30');
    db.close();
  });

  it('walk the named definitions level by level, each bounded by its own links, before the others', () => {
    // 2,000 pages define `alpha beta`: no link names 1,980 of them and one link names each of the
    // other 20. One more page, named by 64 links, holds `alpha` only (no match: a definition must
    // hold two concepts of a question of two), and makes 64 the most links naming one, so that a
    // one-link definition's prior is far under the highest.
    const rows: DescribedRow[] = [];
    for (let page = 1; page <= 2000; page++)
      rows.push({ page, term: `name${page}`, terms: ['alpha', 'beta', `own${page}`], links: page % 100 === 0 ? 1 : 0 });
    rows.push({ page: 2001, term: 'famous', terms: ['alpha', 'gamma'], links: 64 });
    const { db, reader } = answersAlphaBeta(rows, (i) => 100 * (i + 1));
    // The one-link level's walk finds the 20; then no definition no link names can beat them, and
    // none is walked. Bounded by a one-link definition's prior, as the walk over every
    // definition was before the levels, all 4,000 places of the two lists were.
    assert.ok(reader.read <= 2 * 20 + 2, `${reader.read} places read`);
    db.close();
  });

  it('keep the terms they are given: what the postings call a term, the stored documents do too', () => {
    const words = ['Running', 'naïve', 'Straße', 'asyncio', 'gather2', 'データ', 'Ελληνικά', 'x', 'ÉCOLE', 'connections', 'हिन्दी'];
    const tokenizer = new FtsTokenizer();
    const terms = [...new Set(tokenizer.termsOf(words).flat())];
    tokenizer.close();
    const db = openIndexDatabase(':memory:');
    db.prepare('INSERT INTO described_terms (rowid, terms) VALUES (1, ?)').run(terms.join(' '));
    const stored = (db.prepare('SELECT term FROM described_vocab').all() as { term: string }[]).map((r) => r.term);
    assert.deepEqual(stored.sort(), [...terms].sort());
    assert.ok(terms.includes('run') && terms.includes('connect'), 'stemmed as the postings are');
    db.close();
  });
});
