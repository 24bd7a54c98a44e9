import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeSnippet, passageWords, snippetFromPassages, snippetJoins, snippetNeedles, snippetPassages } from './snippet.ts';
import { parseQuery } from './tokenize.ts';

const body = [
  'Gathering results',
  'Run awaitable objects in the aws sequence concurrently. If return_exceptions is False, the first exception is propagated.',
  'ok',
  'asyncio.gather(*aws, return_exceptions=False) returns a list of results in the order of aws.',
  'Short note.',
  'It follows the short note.',
].join('\n');

/** The passages prepared at index time give the snippet makeSnippet gives from the page text. */
describe('snippets from prepared passages', () => {
  for (const query of ['asyncio gather', 'return exceptions', 'short note', 'nothing matches here', 'the']) {
    it(query, () => {
      const concepts = parseQuery(query).concepts;
      const { passages, fallback } = snippetPassages(body, 'A description.', 'Gathering results');
      const needles = snippetNeedles(concepts);
      const hits = passages.filter(({ passage }) => needles.some((n) => [...passageWords(passage.block)].some((w) => w.startsWith(n)))).map((p) => p.passage);
      assert.equal(snippetFromPassages(hits, fallback, concepts, snippetJoins(concepts)), makeSnippet(body, 'A description.', concepts, 'Gathering results'));
    });
  }
});
