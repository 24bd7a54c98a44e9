import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FILTER_FROM, mayHold, pageFilter } from './page-filter.ts';

/** A small seeded generator, so that a failure is the same failure every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SLOTS = 8192;

/** Ascending definitions of `pages` (each page one to five of them, at its first slots). */
function definitionsOf(pages: readonly number[], next: () => number): Float64Array {
  const ids: number[] = [];
  for (const page of [...pages].sort((a, b) => a - b))
    for (let k = 0, n = 1 + Math.floor(next() * 5); k < n; k++) ids.push(page * SLOTS + k);
  return Float64Array.from(ids);
}

describe('a filter of the pages a list of definitions holds', () => {
  it('never says no to a page the list holds, and says no to most others', () => {
    const next = random(11);
    // Lists of 300 to 40,000 pages among a million, spread as a common word's are.
    for (const count of [300, 3000, 40_000]) {
      const held = new Set<number>();
      while (held.size < count) held.add(Math.floor(next() * 1_000_000));
      const filter = pageFilter(definitionsOf([...held], next), SLOTS);
      assert.ok(filter, `a list of ${count} pages has a filter`);
      for (const page of held) assert.ok(mayHold(filter, page), `page ${page} of ${count}`);
      let passed = 0;
      let asked = 0;
      for (let page = 0; page < 1_000_000; page += 7) {
        if (held.has(page)) continue;
        asked++;
        if (mayHold(filter, page)) passed++;
      }
      // One bit for each run of pages, at least 16 bits a page held: a page not held passes about
      // one time in 16 (a filter of one bit for every 4,096 pages would pass most).
      assert.ok(passed / asked < 0.1, `${count} pages: ${passed} of ${asked} not held passed`);
      // A bit a page costs at most about four bytes a page held, where the list is eight a definition.
      assert.ok(filter.bits.byteLength <= 4 * count + 4, `${filter.bits.byteLength} bytes for ${count} pages`);
    }
  });

  it('is exact where the pages are dense, and says no past the list’s last page', () => {
    const next = random(3);
    const pages = Array.from({ length: 1000 }, (_, i) => 2 * i);
    const filter = pageFilter(definitionsOf(pages, next), SLOTS);
    assert.ok(filter);
    assert.equal(filter.shift, 0);
    for (let page = 0; page < 2000; page++) assert.equal(mayHold(filter, page), page % 2 === 0, `page ${page}`);
    for (const page of [2000, 4096, 1_000_000, 2 ** 31 - 1]) assert.equal(mayHold(filter, page), false, `page ${page}`);
  });

  it('is left out for a short list, looked in as it is', () => {
    // One definition each of `n` pages a thousand ids apart.
    const apart = (n: number) =>
      definitionsOf(
        Array.from({ length: n }, (_, i) => i * 1000),
        () => 0,
      );
    assert.equal(apart(FILTER_FROM - 1).length, FILTER_FROM - 1);
    assert.equal(pageFilter(apart(FILTER_FROM - 1), SLOTS), null);
    assert.ok(pageFilter(apart(FILTER_FROM), SLOTS));
  });
});
