import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayUrl, highlight, queryTerms } from './highlight.ts';

const marked = (text: string, q: string) =>
  highlight(text, q)
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
