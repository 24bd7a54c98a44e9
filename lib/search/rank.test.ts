import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionHeads, queryHeads } from './definitions.ts';
import { languageMatch, score, type Candidate } from './rank.ts';
import { parseQuery } from './tokenize.ts';

const base: Candidate = { id: 1, bm25: 10, coversAll: true, headingsAll: false, title: 'Shell environment', url: 'https://h.test/x.html', lang: 'en', langShares: { en: 1 }, markupLang: null, urlLang: null, inlinks: 0, defines: 0 };

test('the language bias puts the page in the requested language first, even with a lower text score', () => {
  const concepts = parseQuery('csh.cshrc').concepts;
  const en = { ...base, id: 1, bm25: 10, urlLang: 'en-US' };
  const fr = { ...base, id: 2, bm25: 8, langShares: { fr: 0.7, en: 0.3 }, urlLang: 'fr-FR' };
  const untranslated = { ...base, id: 3, bm25: 10, urlLang: 'hr-HR' };
  assert.ok(score(fr, concepts, 'fr', 10) > score(en, concepts, 'fr', 10));
  assert.ok(score(en, concepts, 'en', 10) > score(fr, concepts, 'en', 10));
  assert.ok(score(en, concepts, 'en', 10) > score(untranslated, concepts, 'en', 10), 'an English copy under another language loses to the English original');
  assert.deepEqual(languageMatch({ langShares: {}, markupLang: null, urlLang: 'zh-CN' }, 'zh'), { text: 0, declared: 1, likely: true });
});

test('definition heads', () => {
  assert.deepEqual(definitionHeads('coroutine asyncio.gather(*aws, return_exceptions=False)¶'), [{ head: 'asyncio gather', weight: 1 }, { head: 'gather', weight: 0.5 }]);
  assert.deepEqual(definitionHeads('sqrt ( numeric ) → numeric').map((h) => h.head), ['sqrt']);
  assert.deepEqual(definitionHeads('log_min_messages (enum)').map((h) => h.head), ['log min messages']);
  assert.deepEqual(queryHeads(parseQuery('log_min_messages configuration parameter').concepts).map((h) => h.head), ['log min messages configuration parameter', 'log min messages']);
});
