import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexIn } from '../sorted.ts';
import { holds, pageBits, pagesInAll, placeIn, popcount, wantsBits, type ListedPages } from './page-bits.ts';

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

  it('find the pages every list holds, through bitmaps or by searching, as sets do', () => {
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let withBits = 0;
    for (let round = 0; round < 300; round++) {
      const ids = 1 + Math.floor(rand() * 3000);
      // Lists of very different lengths, as a rare word's beside a common one's, empty ones among
      // them; about half of them with a bitmap, as a long list has.
      const lists: ListedPages[] = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
        const share = rand() < 0.1 ? 0 : rand() ** 3;
        const held: number[] = [];
        for (let d = 0; d < ids; d++) if (rand() < share) held.push(d);
        const docs = Uint32Array.from(held);
        return { docs, pages: rand() < 0.5 ? pageBits(docs, ids) : null };
      });
      withBits += lists.filter((l) => l.pages).length;
      const want = [...(lists[0] as ListedPages).docs].filter((d) => lists.every((l) => l.docs.includes(d)));
      assert.deepEqual([...pagesInAll(lists)], want, `round ${round}`);
      for (const l of lists) if (l.pages) for (let d = 0; d < ids + 40; d++) assert.equal(holds(l.pages, d), l.docs.includes(d));
    }
    assert.ok(withBits > 100, `${withBits} lists with a bitmap`);
    assert.deepEqual([...pagesInAll([])], []);
  });

  it('count the bits of any 32-bit word, a mask of every concept among them', () => {
    const slow = (x: number) => {
      let n = 0;
      for (let m = x >>> 0; m; m &= m - 1) n++;
      return n;
    };
    for (const x of [0, 1, 0x80000000, 0x7fffffff, 0xffffffff, -1, 0xdeadbeef]) assert.equal(popcount(x), slow(x), `${x}`);
    for (let i = 0, x = 1; i < 2000; i++, x = Math.imul(x, 2654435761) + i) assert.equal(popcount(x >>> 0), slow(x), `${x >>> 0}`);
  });

  it('are kept for a list holding at least a sixteenth of the pages', () => {
    assert.equal(wantsBits(62_500, 1_000_000), true);
    assert.equal(wantsBits(62_499, 1_000_000), false);
  });
});
