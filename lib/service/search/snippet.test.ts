import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeSnippet, passageSnippet, snippetPassages, withoutPermalinks } from './snippet.ts';
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

describe('snippet words', () => {
  it('are found as words, not as the start of longer words', () => {
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(12);
    const block = `Une lecture du pare-feu. ${filler}Le pare-feu le protège.`;
    // `le` is a word of an English query (no stop word there): the cut is at it, not at `lecture`.
    const snippet = passageSnippet({ block, extra: null }, parseQuery('le', 'en').concepts);
    assert.ok(snippet.endsWith('Le pare-feu le protège.'), snippet);
    assert.ok(!snippet.includes('lecture'), snippet);
  });

  it('choose the block holding the words over one holding longer words they begin', () => {
    const body = ['iptables filters packets in the kernel.', 'The ip command talks to the kernel.'].join('\n');
    assert.match(makeSnippet(body, '', parseQuery('ip kernel').concepts, 'Routing'), /^The ip command/);
  });

  it('still find a long word where only a longer form of it stands', () => {
    const long = { block: `${'Lorem ipsum dolor sit amet. '.repeat(12)}The processing starts at boot.`, extra: null };
    assert.match(passageSnippet(long, parseQuery('process').concepts), /The processing starts/);
  });
});

it('a permalink mark is no text: a term and its description read as such', () => {
  assert.equal(withoutPermalinks('list comprehension¶ A compact way'), 'list comprehension — A compact way');
  assert.equal(withoutPermalinks('Built-in Functions¶'), 'Built-in Functions');
  assert.equal(withoutPermalinks('no marks here'), 'no marks here');
  const snippet = passageSnippet(
    { block: 'list comprehension¶', extra: 'A compact way to process all of a sequence.' },
    parseQuery('list comprehension').concepts,
  );
  assert.equal(snippet, 'list comprehension — A compact way to process all of a sequence.');
});
