import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { IndexReader } from './query.ts';
import { SqliteIndexWriter } from './writer.ts';
import { heapAfterGc } from './test-heap.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-speller-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

const PAGES: [string, string, string][] = [
  ['connection', 'Connection settings', 'A connection to the server is opened per session.'],
  ['connection2', 'Connection pooling', 'Connection pooling keeps connections open.'],
  ['stage', 'Theatre', 'The stage of a performance.'],
  ['state', 'Machines', 'The state of a machine.'],
  ['state2', 'Sessions', 'Session state is kept.'],
  ['state3', 'Forms', 'A form keeps its state.'],
  ['gather', 'Tasks', 'Run awaitables concurrently with asyncio.gather and wait.'],
  ['diagonal', 'Geometry', 'The diagonal of a box is a line segment.'],
  [
    'long',
    'Long words',
    'Words of 41 letters: abcdefghijklmnopqrstuvwxyzabcdefghijklmno, and of 42: abcdefghijklmnopqrstuvwxyzabcdefghijklmnop.',
  ],
];

describe('spelling corrections from the index vocabulary', () => {
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  for (const [name, title, body] of PAGES) writer.upsert(buildDocument({ url: `https://docs.test/${name}.html`, html: html(title, body) }));
  writer.finish();
  writer.close();
  const reader = new IndexReader(file);
  after(() => reader.close());
  const search = (query: string, exact = false) => reader.search({ query, language: 'en', limit: 10, exact });

  it('corrects each kind of mistake to a word the index holds, and says what it searched', () => {
    for (const [typed, meant] of [
      ['conection', 'connection'],
      ['connetcion', 'connection'],
      ['connnection', 'connection'],
      ['conmection', 'connection'],
      ['Diaonal', 'Diagonal'],
    ]) {
      const a = search(typed as string);
      assert.deepEqual(a.corrected, { query: meant }, typed);
      assert.ok(a.results.length > 0, typed);
    }
  });

  it('corrects a part of an identifier, keeping the rest as typed', () => {
    const a = search('asyncio.gahter');
    assert.deepEqual(a.corrected, { query: 'asyncio.gather' });
    assert.equal(a.results[0]?.url, 'https://docs.test/gather.html');
  });

  it('never corrects a word the index holds, nor a short word, nor with exact', () => {
    assert.equal(search('connection state').corrected, undefined);
    assert.equal(search('frm').corrected, undefined, 'three letters are too few to tell');
    const exact = search('conection', true);
    assert.equal(exact.corrected, undefined);
    assert.deepEqual(exact.results, []);
  });

  it('chooses by the context of the query: the word that occurs with the others', () => {
    // `stae` lacks a letter of `state` or of `stage`; `state` is the more frequent, but only `stage` occurs with `performance`.
    assert.deepEqual(search('stae').corrected, { query: 'state' });
    assert.deepEqual(search('stae performance').corrected, { query: 'stage performance' });
    assert.equal(search('stae performance').results[0]?.url, 'https://docs.test/stage.html');
  });

  it('leaves a word no edit makes into a word of the index alone', () => {
    const a = search('qwzxplkjh');
    assert.equal(a.corrected, undefined);
    assert.deepEqual(a.results, []);
  });

  it('corrects a word typed with up to 40 letters, and leaves a longer one as typed', () => {
    // Each of the page's two long words with a letter left out: 40 letters, then 41.
    assert.deepEqual(search('abcdefghijklmnopqrstuvwxyabcdefghijklmno').corrected, { query: 'abcdefghijklmnopqrstuvwxyzabcdefghijklmno' });
    const long = search('abcdefghijklmnopqrstuvwxyabcdefghijklmnop');
    assert.equal(long.corrected, undefined, '41 letters typed: no correction is looked for');
    assert.deepEqual(long.results, []);
  });

  it('remembers of a misspelt word only the corrections the index holds, not every edit considered', () => {
    // Distinct words of 30 letters the index cannot hold (about 1,600 edits each, some 300 KB if
    // they were all kept: 30 MB for these 100), as a stream of distinct misspelt words would send.
    let seed = 7;
    const letter = () => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 26));
    const words = Array.from({ length: 100 }, () => Array.from({ length: 30 }, letter).join(''));
    search(words[0] as string);
    const before = heapAfterGc();
    for (const w of words.slice(1)) assert.equal(search(w).corrected, undefined);
    const grown = heapAfterGc() - before;
    assert.ok(grown < 6 * 2 ** 20, `the reader grew by ${(grown / 2 ** 20).toFixed(1)} MB for 99 misspelt words`);
    // What it remembers still corrects: the held corrections of a word come back the same.
    assert.deepEqual(search('conection').corrected, { query: 'connection' });
    assert.deepEqual(search('conection').corrected, { query: 'connection' });
  });
});
