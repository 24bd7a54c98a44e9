import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kept } from './kept.ts';

const filled = (limit: number, n: number) => {
  const kept = new Kept<string, number>(limit);
  for (let i = 0; i < n; i++) kept.set(`k${i}`, i);
  return kept;
};
/** Which of k0…k(n-1) are kept. */
const held = (kept: Kept<string, number>, n: number) => Array.from({ length: n }, (_, i) => `k${i}`).filter((k) => kept.has(k));

describe('Kept', () => {
  it('keeps everything up to its limit', () => {
    const kept = filled(8, 8);
    kept.trim();
    assert.equal(kept.size, 8);
  });

  it('past its limit, drops the least recently used down to three quarters of it', () => {
    const kept = filled(8, 10);
    // k0 and k1 were set first, but used since: k2 to k5 are now the least recently used.
    assert.equal(kept.use('k0'), 0);
    assert.equal(kept.use('k1'), 1);
    kept.trim();
    assert.deepEqual(held(kept, 10), ['k0', 'k1', 'k6', 'k7', 'k8', 'k9']);
    assert.equal(kept.get('k9'), 9);
  });

  it('get() reads without marking an entry used', () => {
    const kept = filled(4, 5);
    assert.equal(kept.get('k0'), 0);
    kept.trim();
    assert.deepEqual(held(kept, 5), ['k2', 'k3', 'k4']);
  });

  it('set() of a key already kept replaces it and counts as a use', () => {
    const kept = filled(4, 5);
    kept.set('k0', 100);
    kept.trim();
    assert.deepEqual(held(kept, 5), ['k0', 'k3', 'k4']);
    assert.equal(kept.get('k0'), 100);
  });

  it('use() of a missing key is undefined and adds nothing', () => {
    const kept = filled(4, 2);
    assert.equal(kept.use('nope'), undefined);
    assert.equal(kept.size, 2);
  });

  it('drops nothing until trim() is called, however much is set', () => {
    const kept = filled(4, 100);
    assert.equal(kept.size, 100);
    kept.trim();
    assert.deepEqual(held(kept, 100), ['k97', 'k98', 'k99']);
  });

  it('clear() drops everything', () => {
    const kept = filled(4, 3);
    kept.clear();
    assert.equal(kept.size, 0);
    assert.equal(kept.get('k1'), undefined);
  });
});

describe('Kept with a limit of bytes', () => {
  /** Entries whose value is their size in bytes. */
  const sized = (limit: number, byteLimit: number, sizes: number[]) => {
    const kept = new Kept<string, number>(limit, { limit: byteLimit, of: (v) => v });
    sizes.forEach((bytes, i) => kept.set(`k${i}`, bytes));
    return kept;
  };

  it('keeps everything up to both limits', () => {
    const kept = sized(8, 100, [50, 30, 20]);
    kept.trim();
    assert.equal(kept.size, 3);
    assert.equal(kept.bytes, 100);
  });

  it('past its bytes, drops the least recently used down to three quarters of them, however few the entries', () => {
    const kept = sized(1000, 100, [40, 40, 10, 10, 10]);
    assert.equal(kept.use('k0'), 40);
    kept.trim();
    // 110 bytes held, 75 kept at most: k1 (40), the least recently used, is enough to go.
    assert.deepEqual(held(kept, 5), ['k0', 'k2', 'k3', 'k4']);
    assert.equal(kept.bytes, 70);
  });

  it('one entry larger than all the bytes goes at the next trim, and what is set again is counted once', () => {
    const kept = sized(1000, 100, [10]);
    kept.set('big', 500);
    kept.set('k0', 20);
    assert.equal(kept.bytes, 520);
    kept.trim();
    assert.equal(kept.has('big'), false);
    assert.equal(kept.bytes, 20);
    kept.clear();
    assert.equal(kept.bytes, 0);
  });

  it('still drops entries past its count, whatever their bytes', () => {
    const kept = sized(4, 1_000_000, [1, 1, 1, 1, 1]);
    kept.trim();
    assert.deepEqual(held(kept, 5), ['k2', 'k3', 'k4']);
  });
});
