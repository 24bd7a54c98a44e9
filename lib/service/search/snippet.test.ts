import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { passageSnippet, snippetPassages } from './snippet.ts';
import { parseQuery } from './tokenize.ts';

const body = [
  'Gathering results',
  'Run awaitable objects in the aws sequence concurrently. If return_exceptions is False, the first exception is propagated.',
  'ok',
  'asyncio.gather(*aws, return_exceptions=False) returns a list of results in the order of aws.',
  'Short note.',
  'It follows the short note.',
].join('\n');

describe('snippet passages', () => {
  const { passages, fallback } = snippetPassages(body, 'A description.', 'Gathering results', 4096);

  it('are the blocks worth showing, a short one with what follows it', () => {
    // The heading that repeats the title and the two-character block are not passages.
    assert.deepEqual(
      passages.map((p) => p.ord),
      [1, 3, 4, 5],
    );
    assert.equal(passages.find((p) => p.ord === 4)?.passage.extra, 'It follows the short note.');
    assert.equal(fallback, 'A description.');
  });

  it('show the chosen passage around the first of the query words', () => {
    const long = { block: `${'Lorem ipsum dolor sit amet. '.repeat(20)}Then asyncio.gather runs them all.`, extra: null };
    const snippet = passageSnippet(long, parseQuery('asyncio gather').concepts);
    assert.match(snippet, /^….*asyncio\.gather runs them all\.$/);
    assert.ok(snippet.length <= 242);
  });

  it('show a short passage with what follows it', () => {
    const short = passages.find((p) => p.ord === 4)?.passage;
    assert.ok(short);
    assert.equal(passageSnippet(short, parseQuery('short note').concepts), 'Short note. It follows the short note.');
  });
});
