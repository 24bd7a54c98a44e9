import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayUrl, highlight, queryTerms } from './highlight.ts';

const marked = (text: string, q: string) =>
  highlight(text, q)
    .filter((s) => s.hit)
    .map((s) => s.text);

const highlightedIn = (text: string, q: string, language: string) =>
  highlight(text, q, language)
    .filter((s) => s.hit)
    .map((s) => s.text);

describe('snippet highlighting', () => {
  it('marks the query terms at word starts, in any case, whole words', () => {
    assert.deepEqual(marked('Run awaitable objects; asyncio.gather() runs Tasks concurrently.', 'asyncio GATHER task'), [
      'asyncio',
      'gather',
      'Tasks',
    ]);
    assert.deepEqual(marked('background tasks', 'task'), ['tasks']);
    assert.deepEqual(marked('multitask', 'task'), [], 'not inside a word');
  });

  it('marks words, not the starts of longer words', () => {
    const text = 'Le pare-feu filtre les paquets ; voir la lecture des règles.';
    assert.deepEqual(marked(text, 'le pare-feu'), ['Le', 'pare', 'feu'], 'in an English query `le` is a word, never `lecture`');
    assert.deepEqual(marked('configured ports and portable ones', 'configure port'), ['configured', 'ports']);
    assert.deepEqual(marked('a taskbar', 'task'), [], 'three letters more make another word');
  });

  it('leaves out the stop words of the query’s language and of English', () => {
    const text = 'Le pare-feu filtre les paquets ; voir la lecture des règles.';
    assert.deepEqual(highlightedIn(text, 'comment configurer le pare-feu', 'fr'), ['pare', 'feu']);
    assert.deepEqual(highlightedIn('the firewall and the rules', 'the firewall', 'de'), ['firewall']);
    assert.deepEqual(highlightedIn('Die Firewall filtert die Pakete', 'die Firewall', 'de'), ['Firewall']);
    assert.deepEqual(queryTerms('comment configurer le pare-feu', 'fr'), ['configurer', 'comment', 'pare', 'feu']);
  });

  it('keeps every character, in order, as plain segments', () => {
    const text = '…the <script>alert(1)</script> & "quotes" gather…';
    assert.equal(
      highlight(text, 'script gather')
        .map((s) => s.text)
        .join(''),
      text,
    );
  });

  it('marks CJK terms inside runs of text', () => {
    assert.deepEqual(marked('日本語のドキュメント', 'ドキュメント'), ['ドキュメント']);
  });

  it('reads terms from the query: letters and digits, no one-letter words, longest first', () => {
    assert.deepEqual(queryTerms('a json.dumps() vs. JSON'), ['dumps', 'json', 'vs']);
    assert.deepEqual(highlight('plain text', '!!!'), [{ text: 'plain text', hit: false }]);
  });
});

describe('display address', () => {
  it('is the host and decoded path segments', () => {
    assert.equal(displayUrl('https://docs.python.org/3/library/asyncio-task.html'), 'docs.python.org › 3 › library › asyncio-task.html');
    assert.equal(displayUrl('https://www.postgresql.org/docs/16/index.html'), 'postgresql.org › docs › 16');
    assert.equal(
      displayUrl('https://debian-handbook.info/browse/de-DE/stable/a/b/sect%C3%A9.html'),
      'debian-handbook.info › browse › de-DE › … › b › secté.html',
    );
    assert.equal(displayUrl('not a url'), 'not a url');
  });
});
