import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { indexTokens } from '../tokenize.ts';
import { FTS_TOKENIZE, FtsTokenizer, unchanged } from './tokenizer.ts';

/** Each token's terms as FTS5 gives them for the token alone, in a table of one row a token. */
function termsOneByOne(tokens: readonly string[]): string[][] {
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(w, tokenize = '${FTS_TOKENIZE}');
    CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
  const insert = db.prepare('INSERT INTO t (rowid, w) VALUES (?, ?)');
  tokens.forEach((token, i) => insert.run(i + 1, token));
  const out = tokens.map((): string[] => []);
  for (const { doc, term } of db.prepare('SELECT doc, term FROM v ORDER BY doc, "offset"').all() as { doc: number; term: string }[])
    out[doc - 1]?.push(term);
  db.close();
  return out;
}

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

  it('gives every token the terms FTS5 gives it alone: one, several where unicode61 splits a word, or none', () => {
    const text = [
      'Running connections déjà-vu naïve Straße İstanbul ΣΊΣΥΦΟΣ Ärger façade coöperate',
      'pg_stat_activity asyncio.gather std::vector x86_64 e2e 3.14 v1.2.3',
      'हिन्दी भाषा सॉफ़्टवेयर ภาษาไทย ការអប់រំ مرحبا بالعالم שלום',
      '日本語のテキスト 中文 한국어 텍스트',
      `${'a'.repeat(64)} ${'ab'.repeat(33)} caresses ponies ties caress cats feed agreed plastered motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease controll roll`,
    ].join(' ');
    const tokens = [...new Set(indexTokens(text)), '\u0301', 'a\u0301b', 'ก\u0e31ข'];
    const expected = termsOneByOne(tokens);
    assert.ok(
      expected.some((t) => t.length > 1),
      'some token gives several terms',
    );
    assert.ok(
      expected.some((t) => t.length === 0),
      'some token gives none',
    );
    const tokenizer = new FtsTokenizer();
    assert.deepEqual(tokenizer.termsOf(tokens), expected);
    // Again in another order and in small batches: a batch's terms do not depend on its company.
    const reversed = [...tokens].reverse();
    const again = new FtsTokenizer();
    const batches: (readonly string[])[] = [];
    for (let i = 0; i < reversed.length; i += 7) batches.push(...again.termsOf(reversed.slice(i, i + 7)));
    assert.deepEqual(batches, [...expected].reverse());
    tokenizer.close();
    again.close();
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

describe('unchanged', () => {
  it('is the pattern of tokens FTS5 leaves as they are, and FTS5 does leave them so', () => {
    const pattern = /^(?:[a-z0-9]*[0-9]|[a-z0-9]{1,2})$/;
    const alphabet = ['a', 'z', '0', '9', 'A', 'é', '_', '-', ' ', 'ß', '5', 'q'];
    const tokens: string[] = [''];
    for (const a of alphabet) {
      tokens.push(a);
      for (const b of alphabet) {
        tokens.push(a + b);
        for (const c of alphabet) tokens.push(a + b + c, `${a}${b}${c}x`, `${a}${b}${c}7`);
      }
    }
    let yes = 0;
    for (const t of tokens) {
      assert.equal(unchanged(t), pattern.test(t), JSON.stringify(t));
      if (unchanged(t)) yes++;
    }
    assert.ok(yes > 100 && yes < tokens.length / 2, `${yes} of ${tokens.length}`);
    const samples = tokens.filter(unchanged).filter((_, i) => i % 9 === 0);
    assert.deepEqual(
      termsOneByOne(samples),
      samples.map((t) => [t]),
    );
  });
});
