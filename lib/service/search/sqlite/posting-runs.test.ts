import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { termOrder } from './posting-buffer.ts';
import { PostingRuns } from './posting-runs.ts';
import { encodePostings, type PostingList } from './postings.ts';

/** A run list of one page, as the postings buffer hands it out (encoded). */
const one = (doc: number, freq: number): Uint8Array =>
  encodePostings({ docs: Uint32Array.of(doc), freqs: Float32Array.of(freq), starts: new Uint32Array(0), places: new Uint16Array(0) });

/** Whole numbers below n, the same ones for the same seed (a linear congruential generator). */
function seeded(seed: number): (n: number) => number {
  return (n) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return (seed >>> 8) % n;
  };
}

describe('posting runs', () => {
  it('give back each term with its runs, in term order and in the order the runs were added, then none', () => {
    const db = new DatabaseSync(':memory:');
    const runs = new PostingRuns(db);
    runs.add('kettl', one(1, 8));
    runs.add('router', one(1, 2));
    runs.endRun();
    runs.add('boil', one(6, 1));
    runs.add('kettl', one(5, 3));
    assert.equal(runs.lists(), 4);
    const out = [...runs.drain()].map(([t, lists]) => [t, lists.map((l) => [...l.docs])]);
    assert.deepEqual(out, [
      ['boil', [[6]]],
      ['kettl', [[1], [5]]],
      ['router', [[1]]],
    ]);
    assert.equal(runs.lists(), 0);
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM posting_runs_store.posting_runs').get() as { n: number }).n,
      0,
      'the rows are gone',
    );
    assert.deepEqual(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'posting_runs'").all(), [], 'not a table of the index');
    assert.deepEqual(
      (db.prepare("SELECT name FROM pragma_database_list WHERE name = 'posting_runs_store'").all() as { name: string }[]).map(
        (d) => d.name,
      ),
      ['posting_runs_store'],
      "a database of the runs' own, apart from the temporary one the writer's other tables are in",
    );
    assert.deepEqual([...runs.drain()], [], 'nothing after a drain');
    db.close();
  });

  it('merge many runs, terms in some of them, as a sort of all their rows would', () => {
    const db = new DatabaseSync(':memory:');
    const runs = new PostingRuns(db);
    const random = seeded(7);
    // 40 runs (two of them empty) of up to 300 terms drawn from 1,000, some past the BMP; each
    // term's page in a run is the run's number, so the order of a term's runs shows.
    const want = new Map<string, number[]>();
    for (let run = 0; run < 40; run++) {
      const terms =
        run % 17 === 5 ? [] : [...new Set(Array.from({ length: random(300) }, () => `t${random(1000)}${random(9) ? '' : '\u{1F600}'}`))];
      for (const t of terms.sort(termOrder)) {
        runs.add(t, one(run, 1));
        want.set(t, [...(want.get(t) ?? []), run]);
      }
      runs.endRun();
    }
    const got = [...runs.drain()].map(([t, lists]) => [t, lists.map((l) => l.docs[0])] as const);
    assert.deepEqual(
      got,
      [...want].sort(([a], [b]) => termOrder(a, b)),
    );
    assert.ok(got.length > 900, `${got.length} terms`);
    db.close();
  });

  it('keep many lists a row, a list longer than a row whole, and give back every entry and passage as added', () => {
    const db = new DatabaseSync(':memory:');
    const runs = new PostingRuns(db);
    const random = seeded(11);
    // A list of `n` pages from `doc` on, each with up to three passages (or none at all).
    const list = (doc: number, n: number, passages: boolean): PostingList => {
      const starts = new Uint32Array(n + 1);
      for (let i = 0; i < n; i++) starts[i + 1] = (starts[i] as number) + (passages ? random(4) : 0);
      const p = starts[n] as number;
      return {
        docs: Uint32Array.from({ length: n }, (_, i) => doc + i),
        freqs: Float32Array.from({ length: n }, () => random(1000) / 7),
        starts: p ? starts : new Uint32Array(0),
        places: Uint16Array.from({ length: p }, () => random(60000)),
      };
    };
    const plain = (l: PostingList) => ({ docs: [...l.docs], freqs: [...l.freqs], starts: [...l.starts], places: [...l.places] });
    const want = new Map<string, ReturnType<typeof plain>[]>();
    let lists = 0;
    // Six runs of 3,000 terms (ASCII, Greek, past the BMP), one list in 300 of 20,000 pages (far
    // longer than a row), one in 3 with no passages.
    for (let run = 0; run < 6; run++) {
      const terms = [...new Set(Array.from({ length: 3000 }, () => `${['k', 'κ', '\u{1F600}'][random(3)]}${random(20000)}`))].sort(
        termOrder,
      );
      for (const t of terms) {
        const l = list(run * 100_000, random(300) ? 1 + random(12) : 20_000, random(3) > 0);
        runs.add(t, encodePostings(l));
        want.set(t, [...(want.get(t) ?? []), plain(l)]);
        lists++;
      }
      runs.endRun();
    }
    const rows = (db.prepare('SELECT COUNT(*) AS n FROM posting_runs_store.posting_runs').get() as { n: number }).n;
    assert.equal(runs.lists(), lists);
    assert.ok(rows >= 6 && rows * 20 < lists, `${lists} lists in ${rows} rows: many a row, and more than a row a run`);
    const got = [...runs.drain()].map(([t, l]) => [t, l.map(plain)] as const);
    assert.equal(got.length, want.size);
    assert.deepEqual(
      got,
      [...want].sort(([a], [b]) => termOrder(a, b)),
    );
    db.close();
  });

  it('detach their database (deleting its file) on release, refuse runs until opened again, and take them after', () => {
    const db = new DatabaseSync(':memory:');
    const attached = () =>
      (db.prepare("SELECT name FROM pragma_database_list WHERE name = 'posting_runs_store'").all() as { name: string }[]).length;
    const runs = new PostingRuns(db);
    assert.equal(attached(), 1, 'attached when made');
    runs.add('kettl', one(1, 8));
    assert.throws(() => runs.release(), /released while runs are held/);
    assert.equal(attached(), 1, 'kept while it holds runs');
    assert.deepEqual(
      [...runs.drain()].map(([t]) => t),
      ['kettl'],
    );
    runs.release();
    assert.equal(attached(), 0, 'detached');
    runs.release();
    runs.clear();
    assert.throws(() => runs.add('boil', one(2, 1)), /added to after release\(\)/);
    runs.open();
    runs.open();
    assert.equal(attached(), 1, 'attached again, once');
    runs.add('boil', one(2, 1));
    runs.endRun();
    runs.add('boil', one(3, 1));
    assert.deepEqual(
      [...runs.drain()].map(([t, lists]) => [t, lists.map((l) => l.docs[0])]),
      [['boil', [2, 3]]],
      'the runs after a release, in a database attached again',
    );
    db.close();
  });

  it('refuses a term out of order within a run, and takes it in the next', () => {
    const db = new DatabaseSync(':memory:');
    const runs = new PostingRuns(db);
    runs.add('router', one(1, 2));
    assert.throws(() => runs.add('kettl', one(1, 8)), /"kettl" added after "router" in one run/);
    assert.throws(() => runs.add('router', one(2, 8)), /"router" added after "router"/);
    runs.endRun();
    runs.add('kettl', one(3, 8));
    assert.deepEqual(
      [...runs.drain()].map(([t, lists]) => [t, lists.length]),
      [
        ['kettl', 1],
        ['router', 1],
      ],
    );
    db.close();
  });
});
