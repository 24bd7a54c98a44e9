import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import type { SearchRequest } from '../backend.ts';
import { buildDocument } from '../document.ts';
import { IndexReader } from './query.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-paging-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

/**
 * 260 pages that all hold "kettle": 200 on kettles.example that say it often, 40 on
 * teapots.example and 20 on docs.teapots.example that say it once in long text, so that the
 * first stage's best 60 (and 200) are all on kettles.example.
 */
const file = join(dir, 'index.db');
// FTS5 rows too: the last test reads them as an index from before the postings would.
const writer = new SqliteIndexWriter(file, { fullText: true });
for (let i = 0; i < 200; i++)
  writer.upsert(
    buildDocument({
      url: `https://kettles.example/k${i}.html`,
      html: html(`Kettle ${i}`, `${'kettle '.repeat(1 + (i % 7))} boils water, note ${i}. ${filler(i % 13)}`),
    }),
  );
for (let i = 0; i < 60; i++)
  writer.upsert(
    buildDocument({
      url: `https://${i < 40 ? '' : 'docs.'}teapots.example/t${i}.html`,
      html: html(`Teapot ${i}`, `A teapot beside a kettle. ${filler(300 + i)}`),
    }),
  );
writer.finish();
writer.close();
const reader = new IndexReader(file);
after(() => reader.close());

const ask = (extra: Partial<SearchRequest> = {}) => reader.search({ query: 'kettle', language: 'en', limit: 10, exact: true, ...extra });
const urls = (extra: Partial<SearchRequest> = {}) => ask(extra).results.map((r) => r.url);

describe('pages of results', () => {
  it('consecutive pages are the slices of one deep list, disjoint, each saying where the next starts', () => {
    const deep = urls({ limit: 50, offset: 0 }).concat(urls({ limit: 50, offset: 50 }), urls({ limit: 50, offset: 100 }));
    assert.equal(deep.length, 150);
    assert.equal(new Set(deep).size, 150, 'no result twice');
    const paged: string[] = [];
    let offset: number | undefined = 0;
    for (let n = 0; offset !== undefined && n < 15; n++) {
      const a = ask({ limit: 10, offset });
      assert.equal(a.results.length, 10);
      paged.push(...a.results.map((r) => r.url));
      offset = a.next?.offset;
      assert.equal(offset, 10 * (n + 1));
    }
    assert.deepEqual(paged, deep);
    // The first page is what it is alone, however deep another request went.
    assert.deepEqual(urls(), deep.slice(0, 10));
    assert.deepEqual(urls({ limit: 7, offset: 3 }), deep.slice(3, 10));
  });

  it('no next page after the last result, and none past 200 deep', () => {
    const all = urls({ limit: 50, offset: 150 }).concat(urls({ limit: 50, offset: 150 + 50 }));
    assert.ok(all.length >= 50, String(all.length));
    const last = ask({ limit: 10, offset: 190 });
    assert.equal(last.results.length, 10);
    assert.equal(last.next, undefined, 'offset + count = 200: nothing deeper is served');
    assert.deepEqual(ask({ limit: 10, offset: 180 }).next, { offset: 190 });
    const few = reader.search({ query: 'teapot', language: 'en', limit: 50, exact: true });
    assert.equal(few.results.length, 50);
    assert.equal(few.next?.offset, 50, 'ten of the 60 teapot pages follow');
    const rest = reader.search({ query: 'teapot', language: 'en', limit: 50, offset: 50, exact: true });
    assert.equal(rest.results.length, 10);
    assert.equal(rest.next, undefined);
    assert.deepEqual(reader.search({ query: 'teapot', language: 'en', limit: 10, offset: 60, exact: true }), { results: [] });
  });
});

describe('site filters choose the candidates', () => {
  it('a site ranked below the first candidates still fills its page; a host covers its subdomains', () => {
    assert.ok(
      urls({ limit: 50 }).every((u) => u.startsWith('https://kettles.example/')),
      'unfiltered, the best 50 are all on kettles.example',
    );
    const teapots = ask({ sites: ['teapots.example'] });
    assert.equal(teapots.results.length, 10);
    assert.deepEqual(teapots.next, { offset: 10 });
    const all = urls({ sites: ['teapots.example'], limit: 50 }).concat(urls({ sites: ['teapots.example'], limit: 50, offset: 50 }));
    assert.equal(all.length, 60);
    assert.equal(all.filter((u) => u.startsWith('https://docs.teapots.example/')).length, 20);
    assert.deepEqual(urls({ sites: ['docs.teapots.example'], limit: 50 }).length, 20);
    assert.deepEqual(urls({ sites: ['eapots.example'] }), [], 'not a host under it');
  });

  it('excluded hosts give no results, and an exclusion wins over sites', () => {
    const rest = urls({ excludeSites: ['kettles.example'], limit: 50 });
    assert.equal(rest.length, 50);
    assert.ok(rest.every((u) => /^https:\/\/(docs\.)?teapots\.example\//.test(u)));
    const noDocs = urls({ sites: ['teapots.example'], excludeSites: ['docs.teapots.example'], limit: 50 });
    assert.equal(noDocs.length, 40);
    assert.ok(noDocs.every((u) => u.startsWith('https://teapots.example/')));
    assert.deepEqual(urls({ sites: ['teapots.example'], excludeSites: ['teapots.example'] }), []);
  });
});

describe('on FTS5 (an index whose postings are not built yet)', () => {
  it('filters and pages the same way', () => {
    const old = join(dir, 'fts.db');
    copyFileSync(file, old);
    const db = new DatabaseSync(old);
    db.exec("DELETE FROM search_meta WHERE key = 'postings'");
    db.close();
    const fts = new IndexReader(old);
    try {
      const ask = (extra: Partial<SearchRequest>) => fts.search({ query: 'kettle', language: 'en', limit: 10, exact: true, ...extra });
      const teapots = ask({ sites: ['docs.teapots.example'], limit: 50 });
      assert.equal(teapots.results.length, 20);
      assert.ok(teapots.results.every((r) => r.url.startsWith('https://docs.teapots.example/')));
      const one = ask({ limit: 50 }).results.map((r) => r.url);
      const two = [...ask({ limit: 25 }).results, ...ask({ limit: 25, offset: 25 }).results].map((r) => r.url);
      assert.deepEqual(two, one);
      assert.deepEqual(ask({ offset: 190 }).next, undefined);
    } finally {
      fts.close();
    }
  });
});
