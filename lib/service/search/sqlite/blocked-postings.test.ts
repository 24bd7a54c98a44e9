import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexIn } from '../sorted.ts';
import { BLOCK, BlockedList, packBlocked } from './blocked-postings.ts';
import { packPostings } from './packed-postings.ts';
import type { PostingList } from './postings.ts';
import { list } from './test-posting-lists.ts';

/** A page length for every id, from the id (any whole number will do). */
const lengthOf = (id: number) => ((id * 2654435761) >>> 0) % 997;

const cases = (): PostingList[] => [
  list(0, 1, () => 1, 0, 1),
  list(1, 1, () => 8, 3, 2),
  list(500, 3, (r) => 1 + Math.floor(r * 40), 6, 3),
  list(500, 200_000, (r) => Math.floor(r * 1e6), 0, 4),
  list(300, 50, (r) => 0.5 + r * 10, 4, 5),
  list(50, 2 ** 26, (r) => 2 ** 31 + Math.floor(r * 10), 2, 6),
  list(BLOCK, 2, () => 2, 2, 7),
  list(BLOCK + 1, 2, (r) => 1 + Math.floor(r * 3), 0, 8),
];

describe('posting lists in blocks', () => {
  it('unpack to the very list packed, whole or block by block: gaps small and large, whole and fractional frequencies, with and without passages', () => {
    for (const [i, want] of cases().entries())
      for (const block of [1, 7, BLOCK]) {
        const packed = packBlocked(want, lengthOf, block);
        assert.deepEqual(new BlockedList(packed).all(), want, `case ${i}, blocks of ${block}`);
        // Looked up page by page from the last, each block unpacked when first looked into.
        const lazy = new BlockedList(packed);
        for (let k = want.docs.length - 1; k >= 0; k--) {
          const at = lazy.find(want.docs[k] as number);
          assert.equal(at, k, `case ${i}, blocks of ${block}, entry ${k}`);
          assert.equal(lazy.freq(at), want.freqs[k]);
          const places = want.starts.length ? want.places.subarray(want.starts[k], want.starts[k + 1]) : want.places;
          assert.deepEqual(lazy.places(at), places);
        }
        assert.equal(lazy.df, want.docs.length);
        assert.equal(lazy.hasPlaces, want.places.length > 0);
      }
  });

  it('find nothing for a page not in the list: before it, between its pages, after it', () => {
    const want = list(1000, 9, () => 1, 0, 11);
    const lazy = new BlockedList(packBlocked(want, lengthOf));
    const last = want.docs[want.docs.length - 1] as number;
    for (let id = 0; id <= last + 3; id++) assert.equal(lazy.find(id), indexIn(want.docs, id), `page ${id}`);
    assert.equal(lazy.blockOf(last + 1), -1);
    assert.equal(lazy.blockOf(0), 0);
  });

  it('bound each block by the very highest score of its entries, for any idf and average length', () => {
    const want = list(2000, 4, (r) => 1 + Math.floor(r * r * 25), 0, 12);
    const lazy = new BlockedList(packBlocked(want, lengthOf));
    for (const avg of [3, 80, 500]) {
      const score = (f: number, len: number) => (2.5 * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * len) / avg));
      const bounds = lazy.blockBounds(score);
      assert.equal(bounds.length, Math.ceil(2000 / BLOCK));
      for (let b = 0; b < bounds.length; b++) {
        let best = 0;
        for (let i = b * BLOCK; i < Math.min(2000, (b + 1) * BLOCK); i++)
          best = Math.max(best, score(want.freqs[i] as number, lengthOf(want.docs[i] as number)));
        assert.equal(bounds[b], best, `block ${b}, average length ${avg}`);
      }
    }
  });

  it('unpack only the blocks looked into', () => {
    const want = list(50 * BLOCK, 3, () => 2, 3, 13);
    const lazy = new BlockedList(packBlocked(want, lengthOf));
    const closed = lazy.bytes;
    lazy.find(want.docs[10 * BLOCK + 5] as number);
    lazy.find(want.docs[10 * BLOCK + 9] as number);
    const one = lazy.bytes - closed;
    lazy.all();
    const every = lazy.bytes - closed;
    assert.ok(one > 0 && Math.abs(one * 50 - every) < 50, `one block ${one} bytes, all ${every}`);
  });

  it('take no more than a few per cent over the list packed whole', () => {
    const typical = list(5000, 20, (r) => 1 + Math.floor(r * r * 30), 4, 9);
    const blocked = packBlocked(typical, lengthOf).length;
    const whole = packPostings(typical).length;
    assert.ok(blocked < whole * 1.05, `${blocked} bytes in blocks against ${whole} whole`);
  });

  it('refuse a list out of page order or a page without a length, and bytes that end early, run over or disagree with the directory', () => {
    const bad: PostingList = { docs: Uint32Array.of(5, 5), freqs: Float32Array.of(1, 1), starts: new Uint32Array(0), places: new Uint16Array(0) };
    assert.throws(() => packBlocked(bad, lengthOf), /out of order/);
    assert.throws(() => packBlocked(list(3, 4, () => 1, 0, 1), () => -1), /no length/);
    const want = list(400, 10, () => 3, 3, 14);
    const packed = packBlocked(want, lengthOf);
    assert.throws(() => new BlockedList(packed.subarray(0, packed.length - 1)), /ends early/);
    assert.throws(() => new BlockedList(Uint8Array.from([...packed, 0])), /left over/);
    assert.throws(() => new BlockedList(packed.subarray(0, 3)), /ends early|bad header/);
    // A block whose entries end on another page than its directory says: the directory of a list of
    // pages 1, 2, 3 before the entries of pages 1, 2, 4 (six bytes each: three gaps, three frequencies).
    const of = (docs: number[]) =>
      packBlocked({ docs: Uint32Array.from(docs), freqs: Float32Array.of(1, 1, 1), starts: new Uint32Array(0), places: new Uint16Array(0) }, lengthOf);
    const said = of([1, 2, 3]);
    const held = of([1, 2, 4]);
    const spliced = Uint8Array.from([...said.subarray(0, said.length - 6), ...held.subarray(held.length - 6)]);
    const broken = new BlockedList(spliced);
    assert.throws(() => broken.find(2), /does not end where its directory says/);
    assert.equal(new BlockedList(Uint8Array.from([...said.subarray(0, said.length - 6), ...said.subarray(said.length - 6)])).find(3), 2);
  });
});
