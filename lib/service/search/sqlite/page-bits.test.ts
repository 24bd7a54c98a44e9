import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexIn } from '../sorted.ts';
import { pageBits, placeIn, wantsBits } from './page-bits.ts';

describe('page bitmaps of long posting lists', () => {
  it('find every page where a binary search finds it, and none it does not hold', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const ids of [1, 31, 32, 33, 64, 1000, 4099]) {
      for (const share of [0, 0.01, 0.3, 0.97, 1]) {
        const held: number[] = [];
        for (let d = 0; d < ids; d++) if (share === 1 || rand() < share) held.push(d);
        const docs = Uint32Array.from(held);
        const bits = pageBits(docs, ids);
        // Every id below the range, the words' edges among them, and past it.
        for (let d = 0; d < ids + 70; d++) assert.equal(placeIn(bits, d), indexIn(docs, d), `${ids} ids, share ${share}, page ${d}`);
      }
    }
  });

  it('are kept for a list holding at least a sixteenth of the pages', () => {
    assert.equal(wantsBits(62_500, 1_000_000), true);
    assert.equal(wantsBits(62_499, 1_000_000), false);
  });
});
