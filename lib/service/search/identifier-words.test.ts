import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identifierWords } from './identifier-words.ts';
import { parseQuery } from './tokenize.ts';

const wordsOf = (query: string, language = 'en') => identifierWords(parseQuery(query, language).concepts, language);

describe("an identifier's words", () => {
  it('are its parts but stop words, and each two adjacent parts joined as the index holds them, but a stop word', () => {
    assert.deepEqual(wordsOf('lo_import_with_oid'), [{ compound: 'loimportwithoid0', words: ['lo', 'import', 'oid', 'loimport0'] }]);
    assert.deepEqual(wordsOf('libpq-int.h'), [{ compound: 'libpqinth0', words: ['libpq', 'int', 'h', 'libpqint0', 'inth0'] }]);
  });

  it('of two parts are the two: their join is the identifier itself', () => {
    assert.deepEqual(wordsOf('pg_config'), [{ compound: 'pgconfig0', words: ['pg', 'config'] }]);
  });

  it('are none for a word, a stop word, or an identifier of stop words only', () => {
    assert.deepEqual(wordsOf('vacuum'), []);
    assert.deepEqual(wordsOf('the'), []);
    assert.deepEqual(wordsOf('is_a'), []);
  });

  it("are each identifier's, in the query's order, its stop words by its language", () => {
    assert.deepEqual(wordsOf('set_le_mode zone-de-test', 'fr'), [
      { compound: 'setlemode0', words: ['set', 'mode'] },
      { compound: 'zonedetest0', words: ['zone', 'test'] },
    ]);
  });
});
