import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStopWord, STOP_WORD_LANGUAGES, stopWordsOf, withoutElision } from './stop-words.ts';

describe('stop words', () => {
  it('are those of the query language and of English', () => {
    assert.ok(isStopWord('le', 'fr'));
    assert.ok(isStopWord('les', 'fr'));
    assert.ok(isStopWord('the', 'fr'), 'English function words stay stop words in every language');
    assert.ok(isStopWord('die', 'de'));
    assert.ok(isStopWord('и', 'ru'));
    assert.ok(!isStopWord('le', 'en'), 'French words are not stop words of an English query');
    assert.ok(!isStopWord('die', 'en'));
    assert.ok(!isStopWord('pare', 'fr'));
    assert.ok(!isStopWord('configurer', 'fr'));
    assert.ok(!isStopWord('le', 'xx'), 'a language without a list has English’s only');
  });

  it('keep the words English queries search for, as before', () => {
    for (const w of ['where', 'between', 'over', 'any', 'all', 'how', 'if']) assert.ok(!isStopWord(w, 'en'), w);
  });

  it('take Portuguese’s function words, not content words', () => {
    assert.ok(isStopWord('dos', 'pt'));
    assert.ok(!isStopWord('área', 'pt'));
  });

  it('cover every language the handbook and the reference ship in but those read as character pairs', () => {
    // The lang-REGION folders of the handbook and the .xx.html files of the reference in the
    // corpus's manifest.tsv (tests/integration/search-languages.test.ts reads them from it).
    const languages = 'ar ca cs da de el en es fa fr hr id it ja ko nb nl pl pt ro ru sv tr vi zh'.split(' ');
    const without = [...languages].filter((l) => !STOP_WORD_LANGUAGES.includes(l)).sort();
    assert.deepEqual(without, ['ja', 'ko', 'zh']);
    for (const l of STOP_WORD_LANGUAGES) assert.ok(stopWordsOf(l).size >= 29, l);
  });

  it('are single words in the query’s form', () => {
    for (const l of STOP_WORD_LANGUAGES) for (const w of stopWordsOf(l)) assert.match(w, /^[\p{Ll}\p{Lo}\p{M}]+$/u, `${l}: ${w}`);
  });
});

describe('elisions', () => {
  it('drop the article or pronoun an apostrophe joins to a word', () => {
    assert.equal(withoutElision("l'interface", 'fr'), 'interface');
    assert.equal(withoutElision('qu’un', 'fr'), 'un');
    assert.equal(withoutElision("dell'utente", 'it'), 'utente');
  });

  it('keep words whose first part is no stop word, and English as typed', () => {
    assert.equal(withoutElision("aujourd'hui", 'fr'), "aujourd'hui");
    assert.equal(withoutElision("l'interface", 'en'), "l'interface");
    assert.equal(withoutElision('pare-feu', 'fr'), 'pare-feu');
  });
});
