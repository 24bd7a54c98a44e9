import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mayHold, signatureOf, signLine, wordHash } from './word-signature.ts';

const wordsFrom = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('a signature of a set of words', () => {
  it('always may hold a word of the set, and holds few others', () => {
    for (const count of [1, 5, 60, 118, 1000]) {
      const held = wordsFrom('kept', count);
      const signature = signatureOf(held, 1024);
      for (const w of held) assert.ok(mayHold(signature, wordHash(w)), `${w} of ${count}`);
      const others = wordsFrom('other', 10_000);
      const passed = others.filter((w) => mayHold(signature, wordHash(w))).length / others.length;
      // Sixteen bits a word: about one in seventy passes; past 64 words, the 1,024 bits fill up.
      const bound = count <= 64 ? 0.03 : count <= 118 ? 0.07 : 1;
      assert.ok(passed <= bound, `${count} words: ${(passed * 100).toFixed(1)} % of others pass`);
      if (count <= 118) assert.ok(passed > 0, 'a signature says maybe to some words it does not hold');
    }
  });

  it('is sixteen bits a word in a power of two, from 64 bits to the most asked for', () => {
    assert.equal(signatureOf([], 1024).length, 8);
    assert.equal(signatureOf(wordsFrom('w', 4), 1024).length, 8);
    assert.equal(signatureOf(wordsFrom('w', 5), 1024).length, 16);
    assert.equal(signatureOf(wordsFrom('w', 33), 1024).length, 128);
    assert.equal(signatureOf(wordsFrom('w', 5000), 1024).length, 128);
    assert.equal(signatureOf(wordsFrom('w', 5000), 2048).length, 256);
  });

  it('sets bits by byte, the same on any machine, read back at the length it was stored', () => {
    const signature = signatureOf(['kettle'], 1024);
    const h = wordHash('kettle');
    const set = [...signature].flatMap((byte, i) => [0, 1, 2, 3, 4, 5, 6, 7].filter((b) => (byte >>> b) & 1).map((b) => i * 8 + b));
    assert.deepEqual(
      set,
      [...new Set([h & 63, (h >>> 16) & 63])].sort((a, b) => a - b),
    );
    // Bytes read from the index: a copy at another offset of a larger buffer reads the same.
    const stored = new Uint8Array(signature.length + 3).subarray(3);
    stored.set(signature);
    assert.ok(mayHold(stored, h));
  });

  it('signs a line of words as it signs each word', () => {
    const line = new Uint8Array(128);
    signLine(line, ' two  words ');
    const each = new Uint8Array(128);
    signLine(each, 'two');
    signLine(each, 'words');
    assert.deepEqual(line, each);
    assert.deepEqual(signatureOf(['two', 'words'], 1024), signatureOf(['words', 'two'], 1024));
  });
});
