import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexIn, seek } from './sorted.ts';

/** A small seeded generator, so that a failure is the same failure every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** An ascending list of distinct values below `range`, about `share` of them. */
function list(next: () => number, range: number, share: number): Uint32Array {
  const out: number[] = [];
  for (let v = 0; v < range; v++) if (next() < share) out.push(v);
  return Uint32Array.from(out);
}

describe('sorted lists', () => {
  it('seek finds the first place at or past a value from any start, as a scan does', () => {
    const next = random(3);
    for (let round = 0; round < 200; round++) {
      const l = list(next, 1 + Math.floor(next() * 400), next());
      for (let k = 0; k < 20; k++) {
        const from = Math.floor(next() * (l.length + 1));
        const value = Math.floor(next() * 420) - 10;
        let want = from;
        while (want < l.length && (l[want] as number) < value) want++;
        assert.equal(seek(l, value, from), want, `${value} from ${from} in ${l.length}`);
      }
      for (const v of l) assert.equal(l[indexIn(l, v)], v);
    }
  });
});
