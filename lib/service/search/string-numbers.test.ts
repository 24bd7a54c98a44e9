import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hash, StringNumbers } from './string-numbers.ts';

describe('string numbers', () => {
  it('number strings in the order first met, found whole or within a longer string', () => {
    const n = new StringNumbers();
    assert.equal(n.of('kettl'), 0);
    assert.equal(n.of('boil'), 1);
    assert.equal(n.of('kettl'), 0);
    const names = 'water boil kettl';
    assert.equal(n.of(names, 0, 5), 2);
    assert.equal(n.of(names, 6, 10), 1);
    assert.equal(n.find(names, 11, 16), 0);
    assert.equal(n.find(names, 11, 15), -1, 'a prefix of a known string is not it');
    assert.equal(n.find('kettle'), -1);
    assert.equal(n.find(''), -1);
    assert.deepEqual(n.strings, ['kettl', 'boil', 'water']);
    assert.equal(n.size, 3);
  });

  it('agree with a Map over many strings, past the table’s first size, and forget them all when cleared', () => {
    const n = new StringNumbers();
    const want = new Map<string, number>();
    let seed = 7;
    const random = (k: number) => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return (seed >>> 8) % k;
    };
    // 150,000 draws from 100,000 strings (the table starts at 65,536 slots, half of them used at most).
    for (let i = 0; i < 150_000; i++) {
      const s = `t${random(100_000).toString(36)}`;
      if (!want.has(s)) want.set(s, want.size);
      assert.equal(n.of(s), want.get(s));
    }
    assert.ok(want.size > 60_000, `${want.size} strings`);
    for (const [s, k] of want) assert.equal(n.find(` ${s} `, 1, s.length + 1), k);
    assert.equal(n.find('t-unknown'), -1);
    n.clear();
    assert.equal(n.size, 0);
    for (const s of [...want.keys()].slice(0, 1000)) assert.equal(n.find(s), -1);
    assert.equal(n.of('again'), 0);
  });

  it('tell apart strings whose hashes agree', () => {
    // FNV-1a of three code units: h = ((((o ^ a) * p) ^ b) * p ^ c) * p. For any a and b, the c
    // that gives the same h as 'ABC' is the one that makes the last product's operand agree, when
    // that is a 16-bit unit (about one pair in 65,536). The table's own hash must agree, or the
    // strings would not meet in one slot.
    const o = 0x811c9dc5 | 0;
    const p = 0x01000193;
    const step = (h: number, unit: number) => Math.imul(h ^ unit, p);
    const target = step(step(o, 0x41), 0x42) ^ 0x43;
    let twin = '';
    for (let a = 0x61; a < 0x80 && !twin; a++)
      for (let b = 0; b < 0x10000 && !twin; b++) {
        const c = target ^ step(step(o, a), b);
        if (c >= 0 && c < 0x10000) twin = String.fromCharCode(a, b, c);
      }
    assert.ok(twin && hash(twin, 0, 3) === hash('ABC', 0, 3), 'two strings with one hash, as the table hashes them');
    const n = new StringNumbers();
    assert.equal(n.of('ABC'), 0);
    assert.equal(n.find(twin), -1);
    assert.equal(n.of(twin), 1);
    assert.equal(n.find('ABC'), 0);
    assert.equal(n.find(twin), 1);
  });
});
