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
