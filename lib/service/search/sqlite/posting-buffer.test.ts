import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostingBuffer } from './posting-buffer.ts';
import type { PostingList } from './postings.ts';

const plain = (l: PostingList) => ({ docs: [...l.docs], freqs: [...l.freqs], starts: [...l.starts], places: [...l.places] });

describe('the postings buffer', () => {
  it('hands out one list a term, in term order, each in the order its pages came', () => {
    const b = new PostingBuffer();
    b.add('kettl', 1, 8, [0, 2]);
    b.add('boil', 1, 1, null);
    b.add('water', 2, 1, [1]);
    b.add('kettl', 2, 3, null);
    b.add('boil', 3, 2, null);
    assert.equal(b.size, 5);
    const out = [...b.drain()].map(([t, l]) => [t, plain(l)]);
    assert.deepEqual(out, [
      ['boil', { docs: [1, 3], freqs: [1, 2], starts: [], places: [] }],
      ['kettl', { docs: [1, 2], freqs: [8, 3], starts: [0, 2, 2], places: [0, 2] }],
      ['water', { docs: [2], freqs: [1], starts: [0, 1], places: [1] }],
    ]);
    assert.equal(b.size, 0, 'drained');
    assert.deepEqual([...b.drain()], []);
  });

  it('grows past its first size and keeps every entry', () => {
    const b = new PostingBuffer();
    const pages = 3000;
    for (let id = 1; id <= pages; id++) {
      b.add('every', id, id, [id % 7, (id % 7) + 1]);
      if (id % 3 === 0) b.add(`t${id % 10}`, id, 1, null);
    }
    const lists = new Map(b.drain());
    const every = lists.get('every') as PostingList;
    assert.equal(every.docs.length, pages);
    assert.deepEqual([...every.docs.subarray(0, 3)], [1, 2, 3]);
    assert.equal(every.freqs[pages - 1], pages);
    assert.deepEqual([...every.places.subarray(every.starts[pages - 1], every.starts[pages])], [pages % 7, (pages % 7) + 1]);
    assert.equal((lists.get('t0') as PostingList).docs.length, 100);
  });
});
