import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FtsTokenizer } from './tokenizer.ts';

describe('FtsTokenizer.termsOf', () => {
  const TOKENS = ['running', 'pg_stat', 'x86', 'déjà', 'running', 'ab', 'connections', 'كتاب', '42', 'running'];

  it('gives each token the terms terms() gives it, in order, duplicates and all', () => {
    const fresh = new FtsTokenizer();
    const reference = new FtsTokenizer();
    const got = fresh.termsOf(TOKENS);
    assert.deepEqual(
      got,
      TOKENS.map((t) => reference.terms(t)),
    );
    assert.deepEqual(got[0], ['run'], 'stemmed as FTS5 stems');
    assert.deepEqual(got[3], ['deja'], 'diacritics removed');
    fresh.close();
    reference.close();
  });

  it('remembers what it learnt, and gives the same again from memory', () => {
    const tokenizer = new FtsTokenizer();
    assert.equal(tokenizer.known('connections'), undefined);
    const first = tokenizer.termsOf(TOKENS);
    assert.deepEqual(tokenizer.known('connections'), ['connect']);
    assert.deepEqual(tokenizer.termsOf(TOKENS), first);
    tokenizer.close();
  });
});
