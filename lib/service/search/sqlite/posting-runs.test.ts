import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { PostingRuns } from './posting-runs.ts';
import type { PostingList } from './postings.ts';

const one = (doc: number, freq: number): PostingList => ({
  docs: Uint32Array.of(doc),
  freqs: Float32Array.of(freq),
  starts: new Uint32Array(0),
  places: new Uint16Array(0),
});

describe('posting runs', () => {
  it('give back each term with its runs, in term order and in the order the runs were added, then none', () => {
    const db = new DatabaseSync(':memory:');
    const runs = new PostingRuns(db);
    runs.add('router', one(1, 2));
    runs.add('kettl', one(1, 8));
    runs.endRun();
    runs.add('kettl', one(5, 3));
    runs.add('boil', one(6, 1));
    assert.equal(runs.lists(), 4);
    const out = [...runs.drain()].map(([t, lists]) => [t, lists.map((l) => [...l.docs])]);
    assert.deepEqual(out, [
      ['boil', [[6]]],
      ['kettl', [[1], [5]]],
      ['router', [[1]]],
    ]);
    assert.equal(runs.lists(), 0);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM temp.posting_runs').get() as { n: number }).n, 0, 'the rows are gone');
    assert.deepEqual(
      db.prepare("SELECT name FROM sqlite_schema WHERE name = 'posting_runs'").all(),
      [],
      'a temporary table, not one of the index',
    );
    db.close();
  });
});
