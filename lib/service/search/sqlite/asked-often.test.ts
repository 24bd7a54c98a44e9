import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AskedOften } from './asked-often.ts';

/** Values are their own sizes in bytes, the number a key ends in: `a10` and `x3_10` hold 10. */
const sized = (limit: number) => new AskedOften<string, number>(limit, (_, v) => v);
const sizeOf = (key: string) => Number(/\d+$/.exec(key)?.[0]);

/** One query asking for `keys` as a reader does: each got, else read and offered. How many were
 * found kept (not read). */
function query(cache: AskedOften<string, number>, keys: readonly string[]): number {
  let found = 0;
  for (const key of keys) {
    if (cache.get(key) !== undefined) found++;
    else cache.offer(key, sizeOf(key));
  }
  cache.endQuery();
  return found;
}
/** Which of `keys` are kept. */
const kept = (cache: AskedOften<string, number>, keys: readonly string[]) => keys.filter((k) => cache.has(k));

describe('AskedOften', () => {
  it('keeps what it reads while it fits, and counts its bytes', () => {
    const cache = sized(30);
    assert.equal(query(cache, ['a10', 'b10', 'c10']), 0);
    assert.deepEqual(kept(cache, ['a10', 'b10', 'c10']), ['a10', 'b10', 'c10']);
    assert.equal(cache.bytes, 30);
    assert.equal(query(cache, ['a10', 'b10', 'c10']), 3);
  });

  it('keeps as many lists of a stream that comes back to more than fit as fit, where recency alone keeps none', () => {
    const cache = sized(40);
    const cycle = ['a10', 'b10', 'c10', 'd10', 'e10', 'f10'];
    let found = 0;
    for (let pass = 0; pass < 5; pass++) for (const key of cycle) found += query(cache, [key]);
    // The first four read stay; each pass after the first finds them.
    assert.deepEqual(kept(cache, cycle), ['a10', 'b10', 'c10', 'd10']);
    assert.equal(found, 4 * 4);
    assert.equal(cache.bytes, 40);
  });

  it('takes in a list asked for more often than those it pushes out, the least recently used of equals first', () => {
    const cache = sized(30);
    // a10 asked for three times, b10 and c10 twice; a10 the least recently used, then b10.
    for (const keys of [['c10', 'b10', 'a10'], ['a10'], ['a10'], ['b10'], ['c10']]) query(cache, keys);
    // hot10, asked for once and then twice, is asked for no more often than any: used, not kept.
    assert.equal(query(cache, ['hot10']), 0);
    query(cache, ['hot10']);
    assert.deepEqual(kept(cache, ['a10', 'b10', 'c10', 'hot10']), ['a10', 'b10', 'c10']);
    // Asked for three times, it takes the place of b10, the least recently used of those asked
    // for less often (b10 and c10, twice each); a10, used before it, stays.
    query(cache, ['hot10']);
    assert.deepEqual(kept(cache, ['a10', 'b10', 'c10', 'hot10']), ['a10', 'c10', 'hot10']);
  });

  it('pushes out several smaller lists for a larger one, and none when those asked for less hold too little', () => {
    const cache = sized(30);
    query(cache, ['a10', 'b10', 'c10']);
    query(cache, ['a10']);
    // big20 needs 20 bytes, and only c10 and b10 (10 each) are asked for less often than its two asks.
    query(cache, ['big20']);
    query(cache, ['big20']);
    assert.deepEqual(kept(cache, ['a10', 'b10', 'c10', 'big20']), ['a10', 'big20']);
    // huge30 needs 30: big20 (two asks) is not asked for less than huge30's two, so nothing goes.
    query(cache, ['huge30']);
    query(cache, ['huge30']);
    assert.deepEqual(kept(cache, ['a10', 'big20', 'huge30']), ['a10', 'big20']);
    assert.equal(cache.bytes, 30);
  });

  it('pushes out the entries asked for least first, whichever was used last', () => {
    const cache = sized(30);
    // w15 asked for three times, y10 twice, x5 once and last.
    for (const keys of [['w15', 'y10'], ['w15'], ['w15'], ['y10'], ['x5']]) query(cache, keys);
    // hot10 comes in at its third ask, in place of x5 and then y10 (x5 alone holds too little).
    for (let ask = 0; ask < 3; ask++) query(cache, ['hot10']);
    assert.deepEqual(kept(cache, ['w15', 'y10', 'x5', 'hot10']), ['w15', 'hot10']);
    assert.equal(cache.bytes, 25);
  });

  it('holds what a query was given until it ends, kept or not, and counts a query asking twice as one ask', () => {
    const cache = sized(10);
    query(cache, ['a10']);
    query(cache, ['a10']);
    // b10 is read, not kept (a10 was asked for twice), yet found again within its query.
    assert.equal(cache.get('b10'), undefined);
    assert.equal(cache.offer('b10', 10), false);
    assert.equal(cache.get('b10'), 10);
    assert.equal(cache.get('b10'), 10);
    cache.endQuery();
    assert.equal(cache.get('b10'), undefined);
    // That query's three gets of b10 were one ask: with this one, two, no more than a10's.
    cache.offer('b10', 10);
    cache.endQuery();
    assert.deepEqual(kept(cache, ['a10', 'b10']), ['a10']);
  });

  it('counts a key a query asks for again before it is read as one ask', () => {
    const cache = sized(10);
    query(cache, ['a10']);
    query(cache, ['a10']);
    // b10 asked for twice in each of two queries before it is read: two asks, no more than a10's.
    for (let q = 0; q < 2; q++) {
      assert.equal(cache.get('b10'), undefined);
      assert.equal(cache.get('b10'), undefined);
      assert.equal(cache.offer('b10', 10), false);
      cache.endQuery();
    }
    assert.deepEqual(kept(cache, ['a10', 'b10']), ['a10']);
  });

  it('a value kept and then pushed out by another within the same query stays at hand for it', () => {
    const cache = sized(10);
    query(cache, ['a10']);
    // c10 asked for in two queries that do not read it.
    for (let q = 0; q < 2; q++) {
      assert.equal(cache.get('c10'), undefined);
      cache.endQuery();
    }
    // a10 is found (its second ask), then c10, read at its third, takes its place.
    assert.equal(cache.get('a10'), 10);
    assert.equal(cache.get('c10'), undefined);
    assert.equal(cache.offer('c10', 10), true);
    assert.deepEqual(kept(cache, ['a10', 'c10']), ['c10']);
    assert.equal(cache.get('a10'), 10);
    cache.endQuery();
    assert.equal(cache.get('a10'), undefined);
  });

  it('halves the counts as asks go by, so that what was asked for long ago gives way', () => {
    const cache = sized(10);
    for (let i = 0; i < 8; i++) query(cache, ['old10']);
    // Thousands of asks of other lists, none asked twice: old10's eight asks are halved away.
    for (let i = 0; i < 4096; i++) query(cache, [`x${i}_10`]);
    query(cache, ['new10']);
    query(cache, ['new10']);
    assert.deepEqual(kept(cache, ['old10', 'new10']), ['new10']);
  });

  it('never keeps a value larger than its limit, and forgets everything on clear()', () => {
    const cache = sized(10);
    assert.equal(cache.get('big20'), undefined);
    assert.equal(cache.offer('big20', 20), false);
    query(cache, ['a10']);
    assert.deepEqual(kept(cache, ['a10', 'big20']), ['a10']);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
    assert.equal(cache.get('a10'), undefined);
  });

  it('counts a kept value again when it grows, and pushes out those asked for least to stay within its limit', () => {
    // Values whose size can change once kept, as a page's signals do when ranking makes their heading index.
    const cache = new AskedOften<string, { size: number }>(40, (_, v) => v.size);
    const values = new Map(['a', 'b', 'c', 'd'].map((k) => [k, { size: 10 }]));
    const ask = (keys: readonly string[]) => {
      for (const key of keys) if (cache.get(key) === undefined) cache.offer(key, values.get(key) as { size: number });
      cache.endQuery();
    };
    // a asked for three times, b twice, c and d once; d the most recently used of those.
    for (const keys of [['a', 'b', 'c', 'd'], ['a', 'b'], ['a']]) ask(keys);
    assert.equal(cache.bytes, 40);
    // The same size again changes nothing; a key not kept is no error.
    cache.resize('a');
    cache.resize('nothing');
    assert.equal(cache.bytes, 40);
    // b grows by 5: c, the least recently used of those asked for least, goes.
    (values.get('b') as { size: number }).size = 15;
    cache.resize('b');
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].filter((k) => cache.has(k)),
      ['a', 'b', 'd'],
    );
    assert.equal(cache.bytes, 35);
    // d, asked for least, grows past what the others leave it: it goes itself, and they stay.
    (values.get('d') as { size: number }).size = 20;
    cache.resize('d');
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].filter((k) => cache.has(k)),
      ['a', 'b'],
    );
    assert.equal(cache.bytes, 25);
    // A value that shrinks frees its room: d, read again, is kept.
    (values.get('b') as { size: number }).size = 5;
    cache.resize('b');
    assert.equal(cache.bytes, 15);
    ask(['d']);
    assert.equal(cache.has('d'), true);
    assert.equal(cache.bytes, 35);
  });
});
