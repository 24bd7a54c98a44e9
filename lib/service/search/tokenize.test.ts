import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eachWord, firstWords, hasJoiner, indexText, indexTokens, parseQuery, words } from './tokenize.ts';

test('identifiers are indexed as parts and as joined runs of parts', () => {
  const t = indexText('Use asyncio.gather() and pg_stat_activity.').split(' ');
  for (const w of ['asyncio', 'gather', 'asynciogather0', 'pg', 'stat', 'activity', 'pgstat0', 'statactivity0', 'pgstatactivity0'])
    assert.ok(t.includes(w), w);
  assert.ok(indexText('object.__rmul__').split(' ').includes('objectrmul0'));
});

test('indexTokens is indexText a token at a time, words of one part and of several alike', () => {
  const text = 'Use asyncio.gather() and pg_stat_activity. Plain words, l’homme, a-b-c-d-e-f-g, 日本語, 3.14, x86_64';
  assert.deepEqual(indexTokens(text), indexText(text).split(' '));
  assert.deepEqual(indexTokens('a.b'), ['a', 'b', 'ab0']);
  assert.deepEqual(indexTokens('word'), ['word']);
  assert.deepEqual(indexTokens(`${'x'.repeat(65)} ok`), ['ok'], 'a token longer than 64 characters is left out');
  assert.deepEqual(indexTokens('... !!'), []);
});

test('CJK text becomes overlapping pairs', () => {
  assert.equal(indexText('日本語'), '日本 本語');
  assert.equal(indexText('中'), '中');
});

test('queries: concepts, identifiers, stop words and joins of adjacent words', () => {
  const q = parseQuery('log_min_messages configuration parameter');
  assert.deepEqual(
    q.concepts.map((c) => c.compound ?? c.parts[0]),
    ['logminmessages0', 'configuration', 'parameter'],
  );
  // Adjacent words joined as an identifier, and as the one word people split (decision 0082).
  assert.deepEqual(parseQuery('asyncio gather').joins, ['asynciogather0', 'asynciogather']);
  assert.deepEqual(parseQuery('back up the system').joins, ['backup0', 'backup']);
  assert.deepEqual(parseQuery('os.path join').joins, ['ospathjoin0']);
  assert.deepEqual(
    parseQuery('the where').concepts.map((c) => c.stop),
    [true, false],
  );
  assert.deepEqual(
    parseQuery('"*" OR NEAR').concepts.map((c) => c.parts.join(' ')),
    ['or', 'near'],
  );
  assert.deepEqual(parseQuery('  ').concepts, []);
});

test('the namespace of a dotted name, and no other word’s', () => {
  const namespaces = (q: string, language?: string) => parseQuery(q, language).concepts.map((c) => c.namespace);
  assert.deepEqual(namespaces('ftplib.FTP.mlsd'), ['ftplib']);
  assert.deepEqual(namespaces('std::vector push_back'), ['std', null]);
  assert.deepEqual(namespaces('object.__rmul__ function.__annotations__'), ['object', 'function'], 'a special name is one of its type');
  assert.deepEqual(namespaces('a.. b._ c_.d'), [null, null, null]);
  assert.deepEqual(namespaces('os posix_fallocate'), [null, null], 'a word alone, and an identifier joined otherwise than by a dot');
  assert.deepEqual(namespaces('drag-and-drop PL/pgSQL debian-devel'), [null, null, null]);
  assert.deepEqual(namespaces('.bashrc'), [null], 'a name that starts with its dot is in no namespace');
  assert.deepEqual(namespaces("l'objet.attribut", 'fr'), ['objet'], 'after the elision');
});

test('queries in a language: its stop words and elisions, and English’s', () => {
  const stops = (q: string, language?: string) =>
    parseQuery(q, language)
      .concepts.filter((c) => c.stop)
      .map((c) => c.parts.join('-'));
  assert.deepEqual(stops('comment configurer le pare-feu', 'fr'), ['le']);
  assert.deepEqual(stops('comment configurer le pare-feu'), [], 'French words are searched in an English query');
  assert.deepEqual(stops('the firewall des paquets', 'fr'), ['the', 'des']);
  assert.deepEqual(stops('wie konfiguriere ich die Firewall', 'de'), ['wie', 'ich', 'die']);
  assert.deepEqual(stops("qu'est-ce qu'un pare-feu", 'fr'), ['est-ce', 'un'], 'elided, then all stop words');
  assert.deepEqual(stops('operator is_not', 'en'), [], 'an identifier of English stop words is searched');
  assert.deepEqual(
    parseQuery("configurer l'interface réseau", 'fr').concepts.map((c) => c.parts.join(' ')),
    ['configurer', 'interface', 'réseau'],
  );
  assert.deepEqual(parseQuery('le pare-feu', 'fr').joins, [], 'no join across a stop word');
});

test('eachWord and firstWords give words() in order, firstWords only its first n', () => {
  const texts = [
    'See asyncio.gather() and pg_size_bytes: the ﬁle’s SIZE, 3.14 times.',
    '東京の設定ファイル と config.yaml',
    '',
    '  — …  ',
    'Ünïcode  ÉTÉ   naïve café',
  ];
  for (const text of texts) {
    const all = words(text);
    assert.deepEqual([...eachWord(text)], all, text);
    for (const n of [0, 1, 3, all.length, all.length + 5]) assert.deepEqual(firstWords(text, n), all.slice(0, n), `${text} ${n}`);
  }
  assert.ok(words(texts[0] as string).length > 5, 'the texts have words to cut');
});

test('a joiner is found by its character code as the pattern finds it, for every code unit of the BMP', () => {
  const pattern = /[._:\-/'’]/u;
  let joiners = 0;
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    assert.equal(hasJoiner(`ab${ch}c`), pattern.test(`ab${ch}c`), `U+${c.toString(16)}`);
    if (hasJoiner(ch)) joiners++;
  }
  assert.equal(joiners, 7);
  assert.equal(hasJoiner(''), false);
});
