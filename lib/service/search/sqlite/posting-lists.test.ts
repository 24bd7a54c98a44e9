import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatPostings, mergePostings, NO_POSTINGS } from './posting-lists.ts';
import type { PostingList } from './postings.ts';

/** A posting list from [page, frequency, passages] entries. */
function list(entries: [number, number, number[]][]): PostingList {
  const places = entries.flatMap(([, , p]) => p);
  const starts: number[] = [];
  let at = 0;
  for (const [, , p] of entries) {
    starts.push(at);
    at += p.length;
  }
  return {
    docs: Uint32Array.from(entries.map(([d]) => d)),
    freqs: Float32Array.from(entries.map(([, f]) => f)),
    starts: places.length ? Uint32Array.from([...starts, at]) : new Uint32Array(0),
    places: Uint16Array.from(places),
  };
}

/** The entries of a posting list, to compare. */
function entries(l: PostingList): [number, number, number[]][] {
  return [...l.docs].map((d, i) => [d, l.freqs[i] as number, l.starts.length ? [...l.places.subarray(l.starts[i], l.starts[i + 1])] : []]);
}

describe('posting lists', () => {
  it('concatenate runs in order, keeping passages where any entry has some', () => {
    const joined = concatPostings([
      list([
        [1, 2, []],
        [4, 8, [0, 3]],
      ]),
      list([[7, 1, []]]),
      NO_POSTINGS,
      list([[9, 5, [2]]]),
    ]);
    assert.deepEqual(entries(joined), [
      [1, 2, []],
      [4, 8, [0, 3]],
      [7, 1, []],
      [9, 5, [2]],
    ]);
    assert.deepEqual([...joined.starts], [0, 0, 2, 2, 3]);
    const bare = concatPostings([list([[1, 1, []]]), list([[2, 1, []]])]);
    assert.equal(bare.starts.length, 0, 'no passages: no starts, as the blob format has it');
    assert.equal(concatPostings([]).docs.length, 0);
  });

  it('merge with what the index held: pages rebuilt replaced, pages gone dropped, the rest kept in page order', () => {
    const old = list([
      [1, 1, [0]],
      [3, 2, []],
      [5, 3, [1, 2]],
      [8, 4, []],
    ]);
    const rebuilt = new Set([3, 5, 6]);
    const added = list([
      [3, 9, [4]],
      [6, 7, []],
    ]);
    assert.deepEqual(
      entries(mergePostings(old, (id) => rebuilt.has(id), added)),
      [
        [1, 1, [0]],
        [3, 9, [4]],
        [6, 7, []],
        [8, 4, []],
      ],
      'page 5 no longer holds the term; page 6 now does',
    );
    const gone = mergePostings(old, () => true, NO_POSTINGS);
    assert.equal(gone.docs.length, 0, 'every page rebuilt without the term: an empty list');
    assert.equal(gone.starts.length, 0);
    const withoutPassages = mergePostings(old, (id) => id === 1 || id === 5, NO_POSTINGS);
    assert.deepEqual(entries(withoutPassages), [
      [3, 2, []],
      [8, 4, []],
    ]);
    assert.equal(withoutPassages.starts.length, 0, 'the passages left with their pages');
  });
});
