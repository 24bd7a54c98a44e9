import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  joinPassages,
  packPages,
  packPassageBlock,
  PASSAGE_BLOCK,
  packPostings,
  unpackPassageBlock,
  unpackPostings,
} from './packed-postings.ts';
import { encodePostings, type PostingList } from './postings.ts';

/** A list of `n` pages with gaps up to `gap`, frequencies from `freq`, and up to `places` passage
 * numbers a page (none at all when 0), from a seeded generator. */
function list(n: number, gap: number, freq: (r: number) => number, places: number, seed: number): PostingList {
  let s = seed;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const docs = new Uint32Array(n);
  const freqs = new Float32Array(n);
  const starts = new Uint32Array(places ? n + 1 : 0);
  const all: number[] = [];
  let doc = Math.floor(next() * gap);
  for (let i = 0; i < n; i++) {
    docs[i] = doc;
    doc += 1 + Math.floor(next() * gap);
    freqs[i] = freq(next());
    if (places) {
      starts[i] = all.length;
      const here = new Set(Array.from({ length: Math.floor(next() * places) }, () => Math.floor(next() * 4096)));
      // Passage numbers as the writer keeps them: ascending, and in any order after a merge.
      const sorted = [...here].sort((a, b) => a - b);
      all.push(...(i % 7 === 3 ? sorted.reverse() : sorted));
    }
  }
  if (places) starts[n] = all.length;
  return { docs, freqs, starts, places: Uint16Array.from(all) };
}

describe('packed posting lists', () => {
  it('unpack to the very list packed: page gaps small and large, whole and fractional frequencies, with and without passages', () => {
    const cases = [
      list(0, 1, () => 1, 0, 1),
      list(1, 1, () => 8, 3, 2),
      list(500, 3, (r) => 1 + Math.floor(r * 40), 6, 3),
      list(500, 200_000, (r) => Math.floor(r * 1e6), 0, 4),
      list(300, 50, (r) => 0.5 + r * 10, 4, 5),
      list(50, 2 ** 26, (r) => 2 ** 31 + Math.floor(r * 10), 2, 6),
    ];
    for (const [i, want] of cases.entries()) {
      const got = unpackPostings(packPostings(want));
      assert.deepEqual(got, want, `case ${i}`);
    }
    // The last page id a uint32 holds.
    const top: PostingList = {
      docs: Uint32Array.of(7, 2 ** 32 - 1),
      freqs: Float32Array.of(1, 2),
      starts: new Uint32Array(0),
      places: new Uint16Array(0),
    };
    assert.deepEqual(unpackPostings(packPostings(top)), top);
  });

  it('take about a third of the raw blob for a list like the index keeps', () => {
    const typical = list(5000, 20, (r) => 1 + Math.floor(r * r * 30), 4, 9);
    const packed = packPostings(typical).length;
    const raw = encodePostings(typical).length;
    assert.ok(packed < raw / 2.5, `${packed} bytes packed against ${raw} raw`);
  });

  it('refuse a list out of page order, and bytes that end early or run over', () => {
    const bad: PostingList = {
      docs: Uint32Array.of(5, 5),
      freqs: Float32Array.of(1, 1),
      starts: new Uint32Array(0),
      places: new Uint16Array(0),
    };
    assert.throws(() => packPostings(bad), /out of order/);
    const packed = packPostings(list(40, 10, () => 3, 3, 11));
    assert.throws(() => unpackPostings(packed.subarray(0, packed.length - 1)), /ends early|do not add up/);
    assert.throws(() => unpackPostings(Uint8Array.from([...packed, 0])), /left over/);
  });

  it('stored apart, pages and frequencies in one row and passages in blocks, join to the very list', () => {
    const n = 3 * PASSAGE_BLOCK + 17;
    for (const [i, want] of [
      list(n, 9, (r) => 1 + Math.floor(r * 9), 5, 21),
      list(PASSAGE_BLOCK, 2, () => 2, 1, 22),
      list(5, 3, () => 1, 2, 23),
    ].entries()) {
      const pages = unpackPostings(packPages(want));
      assert.equal(pages.places.length, 0, 'no passages in the pages row');
      assert.deepEqual([...pages.docs], [...want.docs]);
      const blocks: Uint8Array[] = [];
      for (let from = 0; from < want.docs.length; from += PASSAGE_BLOCK)
        blocks.push(packPassageBlock(want, from, Math.min(want.docs.length, from + PASSAGE_BLOCK)));
      assert.deepEqual(joinPassages(pages, blocks), want, `case ${i}`);
      // A block alone gives its postings' passages.
      const last = blocks.length - 1;
      const got = unpackPassageBlock(blocks[last] as Uint8Array, want.docs.length - last * PASSAGE_BLOCK);
      const first = want.starts[last * PASSAGE_BLOCK] as number;
      assert.deepEqual([...got.places], [...want.places.subarray(first)]);
    }
    const without = list(10, 3, () => 1, 0, 24);
    assert.deepEqual(joinPassages(unpackPostings(packPages(without)), []), without);
  });

  it('refuse a passage block whose counts do not match its bytes, and blocks that do not cover the list', () => {
    const want = list(2 * PASSAGE_BLOCK, 4, () => 1, 3, 31);
    const block = packPassageBlock(want, 0, PASSAGE_BLOCK);
    assert.throws(() => unpackPassageBlock(block.subarray(0, block.length - 1), PASSAGE_BLOCK), /do not match/);
    assert.throws(() => unpackPassageBlock(block, PASSAGE_BLOCK + 1), /ends early|do not match/);
    assert.throws(() => joinPassages(unpackPostings(packPages(want)), [block]), /1 passage blocks for 256 postings/);
  });
});
