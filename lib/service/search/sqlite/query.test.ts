import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { IndexReader, MIN_MATCHED } from './query.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-query-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

describe('results hold at least half of the query', () => {
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  const pages: [string, string][] = [
    ['kettle', 'A kettle boils water for tea.'],
    ['router', 'A router forwards packets between networks.'],
    ['both', 'The kettle and the router share a shelf with the teapot.'],
  ];
  for (const [name, body] of pages) writer.upsert(buildDocument({ url: `https://docs.test/${name}.html`, html: html(name, body) }));
  writer.finish();
  writer.close();
  const reader = new IndexReader(file);
  after(() => reader.close());
  const urls = (query: string) => reader.search({ query, language: 'en', limit: 10, exact: true }).results.map((r) => r.url.slice(18));

  it('at least half', () => assert.equal(MIN_MATCHED, 0.5));

  it('a page holding one word of three is no answer; nonsense answers nothing', () => {
    assert.deepEqual(urls('qwzxplkjh kettle zzyzx'), []);
    assert.deepEqual(urls('qwzxplkjh zzyzx'), []);
    assert.deepEqual(urls('kettle router teapot'), ['both.html'], 'the pages holding one of the three words are left out');
  });

  it('half of the words is a partial match worth showing, stop words aside', () => {
    assert.deepEqual(urls('kettle zzyzx').sort(), ['both.html', 'kettle.html']);
    assert.equal(urls('the kettle of a zzyzx').length, 2, 'stop words are not counted');
    assert.equal(urls('kettle router').length, 3);
  });
});
