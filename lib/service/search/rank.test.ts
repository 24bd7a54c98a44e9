import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionHeads, queryHeads } from './definitions.ts';
import {
  decodeRankFields,
  encodeRankFields,
  fieldsWith,
  IN_HEADINGS,
  IN_TITLE,
  IN_URL,
  languageMatch,
  linkDensity,
  rankFields,
  score,
  WEIGHTS,
  type Candidate,
} from './rank.ts';
import { testCandidate } from './test-candidate.ts';
import { parseQuery } from './tokenize.ts';

const base: Candidate = testCandidate();

test('the language bias puts the page in the requested language first, even with a lower text score', () => {
  const concepts = parseQuery('csh.cshrc').concepts;
  const en = { ...base, id: 1, bm25: 10, urlLang: 'en-US' };
  const fr = { ...base, id: 2, bm25: 8, langShares: { fr: 0.7, en: 0.3 }, urlLang: 'fr-FR' };
  const untranslated = { ...base, id: 3, bm25: 10, urlLang: 'hr-HR' };
  assert.ok(score(fr, concepts, 'fr', 10) > score(en, concepts, 'fr', 10));
  assert.ok(score(en, concepts, 'en', 10) > score(fr, concepts, 'en', 10));
  assert.ok(
    score(en, concepts, 'en', 10) > score(untranslated, concepts, 'en', 10),
    'an English copy under another language loses to the English original',
  );
  assert.deepEqual(languageMatch({ langShares: {}, markupLang: null, urlLang: 'zh-CN' }, 'zh'), { text: 0, declared: 1, likely: true });
});

test('a page that declares no language is judged by its text, not as declaring another', () => {
  const concepts = parseQuery('median').concepts;
  const declared = { ...base, id: 1, markupLang: 'en' };
  const silent = { ...base, id: 2 };
  const other = { ...base, id: 3, langShares: { en: 0.9, de: 0.1 }, markupLang: 'de' };
  assert.equal(score(silent, concepts, 'en', 10), score(declared, concepts, 'en', 10));
  assert.ok(score(silent, concepts, 'en', 10) > score(other, concepts, 'en', 10));
  assert.deepEqual(languageMatch({ langShares: { en: 0.8 }, markupLang: null, urlLang: null }, 'en'), {
    text: 0.8,
    declared: 0.8,
    likely: false,
  });
  assert.deepEqual(languageMatch({ langShares: { en: 0.8 }, markupLang: 'fr', urlLang: null }, 'en'), {
    text: 0.8,
    declared: 0,
    likely: false,
  });
});

test('definition heads', () => {
  assert.deepEqual(definitionHeads('coroutine asyncio.gather(*aws, return_exceptions=False)¶'), [
    { head: 'asyncio gather', weight: 1 },
    { head: 'gather', weight: 0.3 },
  ]);
  assert.deepEqual(
    definitionHeads('sqrt ( numeric ) → numeric').map((h) => h.head),
    ['sqrt'],
  );
  assert.deepEqual(
    definitionHeads('log_min_messages (enum)').map((h) => h.head),
    ['log min messages'],
  );
  const heads = queryHeads(parseQuery('log_min_messages configuration parameter').concepts);
  assert.deepEqual(heads.slice(0, 2), [
    { head: 'log min messages configuration parameter', weight: 1 },
    { head: 'log min messages', weight: 0.6 },
  ]);
  // The query without its last or first words, weighted by how much of it is kept.
  const fsync = queryHeads(parseQuery('fsync configuration parameter').concepts);
  assert.deepEqual(
    fsync.map((h) => h.head),
    ['fsync configuration parameter', 'fsync configuration', 'configuration parameter', 'fsync', 'parameter'],
  );
  assert.ok((fsync.find((h) => h.head === 'fsync')?.weight ?? 1) < (fsync.find((h) => h.head === 'fsync configuration')?.weight ?? 0));
});

test('titles and headings match plurals by their singular', () => {
  const fields = rankFields('Unique Indexes', 'https://h.test/indexes-unique.html', 'Policies\nMatches and classes');
  for (const w of ['unique', 'index', 'policy', 'match', 'class']) assert.ok(fieldsWith(fields, w), w);
  const concepts = parseQuery('index unique').concepts;
  const page = { ...base, title: 'Unique Indexes', fields };
  assert.ok(score(page, concepts, 'en', 10) > score(base, concepts, 'en', 10));
  assert.ok(fieldsWith(rankFields('Status analysis', 'https://h.test/x.html', ''), 'status'));
  const f = rankFields('Kettle', 'https://h.test/teapot.html', 'Descaling');
  assert.deepEqual(decodeRankFields(encodeRankFields(f)), f);
});

test("a page's fields hold their own words whole, decoded as they were prepared", () => {
  const f = rankFields('Concatenate strings', 'https://h.test/cat/library.html', 'Joined buffers\nUnicode text');
  const stored = decodeRankFields(encodeRankFields(f));
  for (const fields of [f, stored]) {
    assert.equal(fieldsWith(fields, 'concatenate'), IN_TITLE);
    assert.equal(fieldsWith(fields, 'library'), IN_URL);
    assert.equal(fieldsWith(fields, 'unicode'), IN_HEADINGS);
    // `cat` is a word of the address only, not of the title that holds it as a part of a word.
    assert.equal(fieldsWith(fields, 'cat'), IN_URL);
    // Parts of words, words of no field, a field's words run together, and no word are not held.
    for (const w of ['concat', 'librar', 'code', 'html', 'kettle', 'joined buffers', '']) assert.equal(fieldsWith(fields, w), 0, w);
  }
  // An index's stored fields read as its own: a field's words in any order, each once.
  const old = decodeRankFields('string concatenate\nlibrary catlibrary0 cat\ntext unicode joined buffer\nconcatenate strings\n0.000');
  for (const w of ['concatenate', 'library', 'cat', 'unicode']) assert.equal(fieldsWith(old, w), fieldsWith(stored, w), w);
  assert.deepEqual(old.signature, stored.signature);
});

test('headings that hold the query in one heading count more than headings holding its words apart', () => {
  const concepts = parseQuery('sysconfig module').concepts;
  const page = (id: number, headings: string) => ({ ...base, id, headings, fields: rankFields(base.title, base.url, headings) });
  const one = page(1, 'Overview\nThe sysconfig module\nExamples');
  const apart = page(2, 'Overview\nsysconfig\nAnother module');
  assert.ok(score(one, concepts, 'en', 10) > score(apart, concepts, 'en', 10));
  // One word: any heading that holds it is one heading.
  const word = parseQuery('sysconfig').concepts;
  assert.equal(score(apart, word, 'en', 10), score(page(3, 'sysconfig'), word, 'en', 10));
});

test('a page that is mostly links to other pages ranks below one that explains', () => {
  const concepts = parseQuery('sysconfig').concepts;
  assert.equal(linkDensity(0, 'some words here'), 0);
  assert.equal(linkDensity(3, 'one two three four five six seven eight nine ten '.repeat(6)), 0.5);
  assert.equal(linkDensity(40, 'a short list of links'), 1);
  const fields = (density: number) => rankFields(base.title, base.url, '', density);
  const explains = { ...base, id: 2, fields: fields(0.05) };
  const lists = { ...base, id: 1, fields: fields(1) };
  assert.ok(score(explains, concepts, 'en', 10) > score(lists, concepts, 'en', 10));
  assert.equal(decodeRankFields(encodeRankFields(fields(0.25))).linkDensity, 0.25);
  assert.equal(decodeRankFields('title\nurl\n\ntitle').linkDensity, 0, 'a page indexed before has none');
});

test('a page that defines part of the query and lacks the rest counts its definition for the share it holds', () => {
  const concepts = parseQuery('binary string concatenation').concepts;
  // Defines `string concatenation` (a span of the query) but holds two of its three words.
  const part = { ...base, id: 1, coversAll: false, defines: 0.5, held: 2 / 3 };
  // Defines nothing but holds every word.
  const whole = { ...base, id: 2, coversAll: true, held: 1 };
  assert.ok(score(whole, concepts, 'en', 10) > score(part, concepts, 'en', 10));
  // A page that holds the whole query keeps its definition in full.
  assert.equal(score({ ...whole, defines: 0.5 }, concepts, 'en', 10) - score(whole, concepts, 'en', 10), 0.5);
});

test('a page named after the module of a dotted name outranks an equal page that is not', () => {
  const concepts = parseQuery('ftplib.FTP.mlsd').concepts;
  const home = testCandidate({ id: 1, title: 'ftplib — FTP protocol client', url: 'https://docs.test/library/ftplib.html' });
  const byAddress = testCandidate({ id: 2, title: 'FTP protocol client', url: 'https://docs.test/library/ftplib.html' });
  const elsewhere = testCandidate({ id: 3, title: 'Internet protocols and support', url: 'https://docs.test/library/internet.html' });
  assert.ok(score(home, concepts, 'en', 10) > score(elsewhere, concepts, 'en', 10));
  assert.ok(score(byAddress, concepts, 'en', 10) > score(elsewhere, concepts, 'en', 10), 'the address names it too');
  assert.ok(
    Math.abs(score(home, concepts, 'en', 10) - score(elsewhere, concepts, 'en', 10) - WEIGHTS.namespace) < 1e-9,
    'the title holds neither the whole name nor its other parts',
  );
  // A hyphenated name is in no namespace: `debian` in a title says nothing of `debian-devel`.
  const hyphen = parseQuery('debian-devel').concepts;
  const debian = testCandidate({ id: 4, title: 'Debian news', url: 'https://docs.test/news.html' });
  const other = testCandidate({ id: 5, title: 'Mailing news', url: 'https://docs.test/news.html' });
  assert.equal(score(debian, hyphen, 'en', 10), score(other, hyphen, 'en', 10));
});

test("a site the query's best pages come back to counts for a query, not for a question", () => {
  const concepts = parseQuery('resize2fs b384c441').concepts;
  const focused = testCandidate({ id: 1, siteFocus: 0.8 });
  const alone = testCandidate({ id: 2, siteFocus: 0.17 });
  assert.ok(score(focused, concepts, 'en', 10) > score(alone, concepts, 'en', 10));
  assert.ok(Math.abs(score(focused, concepts, 'en', 10) - score(alone, concepts, 'en', 10) - WEIGHTS.site * (0.8 - 0.17)) < 1e-9);
  assert.equal(
    score(focused, concepts, 'en', 10, 1),
    score(alone, concepts, 'en', 10, 1),
    'a question: the manual it asks about is weighed otherwise',
  );
});
