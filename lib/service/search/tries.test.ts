import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchAnswer, SearchBackend, SearchRequest } from './backend.ts';
import { triesFor, withTries } from './tries.ts';

/** An index double that finds something only for the searches `finds` accepts, and notes every search. */
function backend(finds: (r: SearchRequest) => boolean): SearchBackend & { asked: SearchRequest[] } {
  const asked: SearchRequest[] = [];
  return {
    asked,
    async search(r) {
      asked.push(r);
      return { results: finds(r) ? [{ url: `https://a.test/${encodeURIComponent(r.query)}`, title: r.query, snippet: '' }] : [] };
    },
    async stats() {
      return { pages: 1 };
    },
    async warm() {},
    close() {},
  };
}

const request = (r: Partial<SearchRequest>): SearchRequest => ({ query: 'alpha beta gammadelta', language: 'en', limit: 10, ...r });
const empty: SearchAnswer = { results: [] };

describe('triesFor', () => {
  it('offers fewer words and the longest word alone for a query of three words in English on every site', () => {
    assert.deepEqual(triesFor(request({})), [
      { query: 'alpha beta', language: 'en', why: 'fewer-words' },
      { query: 'gammadelta', language: 'en', why: 'one-word' },
    ]);
  });

  it('offers the correction, English and every site when the search was exact, in another language and on some sites', () => {
    const tries = triesFor(request({ query: 'kettel', language: 'fr', exact: true, sites: ['a.test'], excludeSites: ['b.a.test'] }));
    assert.deepEqual(tries, [
      { query: 'kettel', language: 'fr', sites: ['a.test'], excludeSites: ['b.a.test'], why: 'corrected' },
      { query: 'kettel', language: 'en', sites: ['a.test'], excludeSites: ['b.a.test'], why: 'english' },
      { query: 'kettel', language: 'fr', why: 'every-site' },
    ]);
  });

  it('does not offer one word when it is the same as fewer words, nor anything for one word in English', () => {
    assert.deepEqual(
      triesFor(request({ query: 'kettle boils' })).map((t) => t.why),
      ['fewer-words'],
    );
    assert.deepEqual(
      triesFor(request({ query: 'longerword a b' })).map((t) => t.why),
      ['fewer-words', 'one-word'],
    );
    assert.deepEqual(triesFor(request({ query: 'kettle' })), []);
  });
});

describe('withTries', () => {
  it('lists only the tries that find something, each searched once with limit 1', async () => {
    const index = backend((r) => r.query === 'gammadelta');
    const answer = await withTries(index, request({}), empty);
    assert.deepEqual(answer, { results: [], tries: [{ query: 'gammadelta', language: 'en', why: 'one-word' }] });
    assert.deepEqual(
      index.asked.map((r) => [r.query, r.limit, r.exact]),
      [
        ['alpha beta', 1, undefined],
        ['gammadelta', 1, undefined],
      ],
    );
  });

  it('adds no field when no try finds anything', async () => {
    const answer = await withTries(
      backend(() => false),
      request({ language: 'de', sites: ['a.test'] }),
      empty,
    );
    assert.deepEqual(answer, { results: [] });
    assert.equal('tries' in answer, false);
  });

  it('searches nothing more for an answer with results or for a later page', async () => {
    const index = backend(() => true);
    const found: SearchAnswer = { results: [{ url: 'https://a.test/', title: 'a', snippet: '' }] };
    assert.equal(await withTries(index, request({}), found), found);
    assert.equal(await withTries(index, request({ offset: 10 }), empty), empty);
    assert.equal(index.asked.length, 0);
  });

  it('searches the every-site try without the filters and the corrected one not as typed', async () => {
    const index = backend((r) => !r.exact);
    const answer = await withTries(index, request({ query: 'kettel', exact: true, sites: ['a.test'] }), empty);
    assert.deepEqual(
      answer.tries?.map((t) => t.why),
      ['corrected', 'every-site'],
    );
    assert.deepEqual(
      index.asked.map((r) => [r.query, r.exact, r.sites]),
      [
        ['kettel', undefined, ['a.test']],
        ['kettel', undefined, undefined],
      ],
    );
  });
});
