import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { signatureOf, type WordSignature } from '../word-signature.ts';
import { NearAnchors } from './near-anchors.ts';
import { DEF_NEAR, NEAR_SIGNATURE_BITS, NEAR_SIGNATURES_META, NEAR_WORDS_META } from './schema.ts';
import { heldAfterGc } from './test-heap.ts';

/** The tables NearAnchors reads, with `pages`' words near their anchors; `signed`, whether the
 * index says every page's signature of them is in its signals. Reads of `near_words` counted. */
function index(pages: Record<number, string[]>, signed = true): { db: DatabaseSync; reads: () => number } {
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE TABLE search_meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE near_words (page_id INTEGER PRIMARY KEY, words TEXT NOT NULL);
    INSERT INTO search_meta VALUES ('${NEAR_WORDS_META}', 'by page');`);
  if (signed) db.exec(`INSERT INTO search_meta VALUES ('${NEAR_SIGNATURES_META}', 'signed')`);
  const row = db.prepare('INSERT INTO near_words VALUES (?, ?)');
  for (const [id, words] of Object.entries(pages)) row.run(Number(id), [...words].sort().join(' '));
  let reads = 0;
  const prepare = db.prepare.bind(db);
  const counted = new Proxy(db, {
    get: (target, key) =>
      key === 'prepare'
        ? (sql: string) => {
            const statement = prepare(sql);
            if (!sql.includes(' near_words ')) return statement;
            return new Proxy(statement, {
              get: (s, k) => (k === 'all' ? (...args: never[]) => (reads++, s.all(...args)) : Reflect.get(s, k, s)),
            });
          }
        : Reflect.get(target, key, target),
  });
  return { db: counted, reads: () => reads };
}

/** Each page's signature as the signals keep it, with `changed` in place of some (null: none). */
const signaturesOf =
  (pages: Record<number, string[]>, changed: Record<number, string[] | null> = {}) =>
  (id: number): WordSignature | null => {
    const words = id in changed ? changed[id] : pages[id];
    return words ? signatureOf(words, NEAR_SIGNATURE_BITS) : null;
  };

/** An index from before `near_words`: each page's words near its anchors as `defs` rows. */
function indexBefore(pages: Record<number, string[]>): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE TABLE search_meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE defs (head TEXT NOT NULL, page_id INTEGER NOT NULL, weight REAL NOT NULL, kind INTEGER NOT NULL, PRIMARY KEY (head, page_id));`);
  const row = db.prepare(`INSERT INTO defs VALUES (?, ?, 0, ${DEF_NEAR})`);
  db.exec('BEGIN');
  for (const [id, words] of Object.entries(pages)) for (const word of words) row.run(word, Number(id));
  db.exec('COMMIT');
  return db;
}

const ids = (...n: number[]) => n.map((id) => ({ id }));
const filler = Array.from({ length: 100 }, (_, i) => `filler${i}`);

describe('the words near a page’s index anchors', () => {
  const pages = {
    1: ['median', 'aggregate', ...filler],
    2: ['median', ...filler],
    3: ['aggregate', 'window'],
    4: ['median', 'aggregate'],
  };
  const signature = signaturesOf(pages);

  it('are the same pages read through signatures as read from every row', () => {
    const signed = new NearAnchors(index(pages).db);
    const unsigned = new NearAnchors(index(pages, false).db);
    const candidates = ids(1, 2, 3, 4, 5);
    for (const words of [['median'], ['median', 'aggregate'], ['aggregate'], ['window', 'aggregate'], ['absent'], ['filler7', 'median']]) {
      // Without the index's mark, the signatures are not asked for.
      const expected = unsigned.of(words, candidates, () => null);
      assert.deepEqual(signed.of(words, candidates, signature), expected, words.join(' '));
    }
    assert.deepEqual([...signed.of(['median', 'aggregate'], candidates, signature)].sort(), [1, 4]);
    assert.deepEqual([...signed.of(['filler7', 'median'], candidates, signature)].sort(), [1, 2]);
  });

  it('read a page’s row only when its signature may hold every word', () => {
    const { db, reads } = index(pages);
    const near = new NearAnchors(db);
    assert.deepEqual(near.of(['kettle'], ids(1, 2, 3, 4), signature), new Set());
    assert.equal(reads(), 0, 'no signature holds the word: no row is read');
    assert.deepEqual(near.of(['window'], ids(1, 2, 3, 4), signature), new Set([3]));
    assert.equal(reads(), 1);
    assert.deepEqual(near.of(['window'], ids(3), signature), new Set([3]));
    assert.equal(reads(), 1, 'a row read is kept');
    // A signature saying no is believed (here, wrongly: the row holds the word), and one saying
    // maybe is checked against the row (here, wrongly: the row does not hold it).
    const lying = signaturesOf(pages, { 3: ['median'], 4: ['teapot'] });
    const other = new NearAnchors(index(pages).db);
    assert.deepEqual(other.of(['window'], ids(3), lying), new Set());
    assert.deepEqual(other.of(['teapot'], ids(4), lying), new Set());
    // A page without a signature has no words near an anchor.
    assert.deepEqual(other.of(['median'], ids(4), signaturesOf(pages, { 4: null })), new Set());
  });

  it('are the same pages read by word from an index before `near_words`', () => {
    const before = new NearAnchors(indexBefore(pages));
    const paged = new NearAnchors(index(pages, false).db);
    const candidates = ids(5, 4, 3, 2, 1);
    for (const words of [['median'], ['median', 'aggregate'], ['window', 'aggregate'], ['absent'], ['filler7', 'median'], ['filler99']]) {
      assert.deepEqual(
        before.of(words, candidates, () => null),
        paged.of(words, candidates, () => null),
        words.join(' '),
      );
      before.trim();
    }
    assert.deepEqual([...before.of(['filler7', 'median'], candidates, () => null)].sort(), [1, 2]);
  });

  it('of an index before `near_words` keep no more than their room, however many common words queries ask for', () => {
    // 120 words each near an anchor on 4,000 pages, asked for once each (a stream of distinct
    // common words): a reader with 1 MB of room against one with none. What the first holds more
    // is what it keeps, and must be within its room; 10,000 words were kept whatever their size.
    const many: Record<number, string[]> = {};
    for (let id = 1; id <= 4_000; id++) many[id] = Array.from({ length: 120 }, (_, w) => `common${w}`);
    const db = indexBefore(many);
    const candidates = ids(7, 70, 700);
    const grown = (near: NearAnchors) => {
      const before = heldAfterGc();
      for (let w = 0; w < 120; w++) {
        assert.equal(near.of([`common${w}`], candidates, () => null).size, 3);
        near.trim();
      }
      return heldAfterGc() - before;
    };
    const room = 2 ** 20;
    // Once first, so that the code it runs is compiled before either is measured (what the
    // compiler adds to the heap meanwhile differs from run to run with the machine's load).
    grown(new NearAnchors(db, 0));
    const nothing = grown(new NearAnchors(db, 0));
    assert.ok(nothing < room / 4, `a reader with no room kept ${(nothing / 2 ** 20).toFixed(2)} MB`);
    const kept = grown(new NearAnchors(db, room)) - nothing;
    assert.ok(kept > room / 2, `the room is used: kept ${(kept / 2 ** 20).toFixed(2)} MB`);
    assert.ok(kept < room * 1.2, `kept ${(kept / 2 ** 20).toFixed(2)} MB of words' pages in ${room / 2 ** 20} MB of room`);
  });
});
