import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSiteWords, writeSiteWords } from './operators.ts';

describe("the search box's site: words", () => {
  it('site: keeps to a site, -site: leaves one out; the other words are the query', () => {
    assert.deepEqual(readSiteWords('asyncio gather site:docs.python.org'), {
      query: 'asyncio gather',
      sites: ['docs.python.org'],
      excludeSites: [],
    });
    assert.deepEqual(readSiteWords('site:debian.org apt  -site:wiki.debian.org pinning SITE:ubuntu.com'), {
      query: 'apt pinning',
      sites: ['debian.org', 'ubuntu.com'],
      excludeSites: ['wiki.debian.org'],
    });
    assert.deepEqual(
      readSiteWords('a site:x.test site:X.Test.'),
      { query: 'a', sites: ['x.test'], excludeSites: [] },
      'once each, in normal form',
    );
  });

  it('an address pasted after site: stands for its host; anything else is left as typed, for the rules to judge', () => {
    assert.deepEqual(readSiteWords('json site:https://docs.python.org/3/library/json.html').sites, ['docs.python.org']);
    assert.deepEqual(readSiteWords('json site:HTTPS://Docs.Python.org').sites, ['docs.python.org']);
    assert.deepEqual(readSiteWords('json site:Docs.python.org:443').sites, ['Docs.python.org:443']);
    assert.deepEqual(readSiteWords('json site:ftp://x.test').sites, ['ftp://x.test']);
  });

  it('a bare site: and words merely holding "site:" are words', () => {
    assert.deepEqual(readSiteWords('site: website:x.test'), { query: 'site: website:x.test', sites: [], excludeSites: [] });
    assert.deepEqual(readSiteWords('site:python.org'), { query: '', sites: ['python.org'], excludeSites: [] });
  });

  it('written back as the box would show it, and read again to the same search', () => {
    const s = { query: 'apt pinning', sites: ['debian.org'], excludeSites: ['wiki.debian.org'] };
    assert.equal(writeSiteWords(s), 'apt pinning site:debian.org -site:wiki.debian.org');
    assert.deepEqual(readSiteWords(writeSiteWords(s)), s);
    assert.equal(writeSiteWords({ query: 'plain' }), 'plain');
  });
});
