import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { SitePages } from './site-pages.ts';

const ids = (allowed: Uint8Array | null) => (allowed ? [...allowed.keys()].filter((i) => allowed[i]) : null);

describe('the pages a site filter allows', () => {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE signals (id INTEGER PRIMARY KEY, url TEXT NOT NULL)');
  const add = db.prepare('INSERT INTO signals (id, url) VALUES (?, ?)');
  add.run(1, 'https://python.org/');
  add.run(2, 'https://docs.python.org/3/library/json.html');
  add.run(3, 'https://notpython.org/');
  add.run(5, 'http://Wiki.Debian.org:8080/Apt');
  const pages = new SitePages(db);

  it('by host, a host covering the hosts under it; no filter allows every page', () => {
    assert.equal(pages.allowed({}, 1), null);
    assert.equal(pages.allowed({ sites: [], excludeSites: [] }, 1), null);
    assert.deepEqual(ids(pages.allowed({ sites: ['python.org'] }, 1)), [1, 2]);
    assert.deepEqual(ids(pages.allowed({ sites: ['debian.org'] }, 1)), [5]);
    assert.deepEqual(ids(pages.allowed({ excludeSites: ['python.org'] }, 1)), [3, 5]);
    assert.deepEqual(ids(pages.allowed({ sites: ['python.org'], excludeSites: ['docs.python.org'] }, 1)), [1]);
    assert.deepEqual(ids(pages.allowed({ sites: ['example.org'] }, 1)), []);
  });

  it("each page's host, none for a page not there", () => {
    assert.deepEqual(pages.hostsOf([5, 1, 4, 2, 3, 99], 1), [
      'wiki.debian.org',
      'python.org',
      null,
      'docs.python.org',
      'notpython.org',
      null,
    ]);
  });

  it("a host's pages, the same array while the version stays; none for a host with no page", () => {
    assert.deepEqual(pages.pagesOf('python.org', 1), [1]);
    assert.deepEqual(pages.pagesOf('wiki.debian.org', 1), [5]);
    assert.equal(pages.pagesOf('docs.python.org', 1), pages.pagesOf('docs.python.org', 1));
    assert.deepEqual(pages.pagesOf('example.org', 1), []);
  });

  it('how many pages have a host, whatever their ids', () => assert.equal(pages.pageCount(1), 4));

  it('read again for another index version, kept while it stays', () => {
    add.run(9, 'https://peps.python.org/pep-0008/');
    add.run(7, 'not an address');
    assert.deepEqual(ids(pages.allowed({ sites: ['python.org'] }, 1)), [1, 2], 'the same version: what was read');
    assert.deepEqual(ids(pages.allowed({ sites: ['python.org'] }, 2)), [1, 2, 9]);
    assert.deepEqual(ids(pages.allowed({ excludeSites: ['debian.org'] }, 2)), [1, 2, 3, 9]);
    assert.deepEqual(pages.pagesOf('peps.python.org', 2), [9]);
    assert.equal(pages.pageCount(2), 5, 'a page with no host counts for none');
  });
});
