import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { httpResponse, runIndex, search, warcRecord } from '../helpers/search.ts';

type Try = { query: string; language: string; sites?: string[]; excludeSites?: string[]; why: string };
type Answer = { results: unknown[]; tries?: Try[] };

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

/** Kettle pages on kettles.test, teapot pages (which never say kettle) on teapots.test. */
function corpus(): Buffer {
  const records: Buffer[] = [];
  const add = (url: string, body: string) => records.push(gzipSync(warcRecord('response', url, httpResponse(body))));
  for (let i = 0; i < 6; i++)
    add(`https://kettles.test/k${i}.html`, html(`Kettle ${i}`, `The kettle boils water; its kettlewhistle sings, note ${i}.`));
  for (let i = 0; i < 6; i++) add(`https://teapots.test/t${i}.html`, html(`Teapot ${i}`, `A teapot brews leaves, note ${i}.`));
  return Buffer.concat(records);
}

describe('POST /v0/search: the searches to try after an empty search, checked against a real index', () => {
  let service: ServiceProcess;
  let token: string;
  const ask = async (body: Record<string, unknown>) => {
    const r = await search(service.url, token, body);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return { answer: r.json as Answer, remaining: Number(r.headers.get('x-ratelimit-remaining')) };
  };

  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const warc = join(dataDir, 'pages.warc.gz');
    writeFileSync(warc, corpus());
    const r = runIndex(dataDir, [warc, '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    token = service.createKey({ name: 'tries', ratePerMinute: 40 }).token;
  });
  after(async () => {
    await service.stop();
  });

  it('lists only the tries that find something, and the tries cost no search of the key', async () => {
    // Fewer words and the longest word alone find the kettles; the correction (the words as
    // typed, corrected) and English find nothing.
    const before = await ask({ query: 'kettle' });
    assert.ok(before.answer.results.length > 0);
    const empty = await ask({ query: 'zqxj kettlewhistle yyppwq', language: 'de', exact: true });
    assert.deepEqual(empty.answer.results, []);
    assert.deepEqual(empty.answer.tries, [
      { query: 'zqxj kettlewhistle', language: 'de', why: 'fewer-words' },
      { query: 'kettlewhistle', language: 'de', why: 'one-word' },
    ]);
    assert.equal(empty.remaining, before.remaining - 1, 'the empty search and its four tries are one request');
    // What a try says to send finds something when sent.
    for (const t of empty.answer.tries ?? []) assert.ok((await ask({ query: t.query, language: t.language })).answer.results.length > 0);
  });

  it('offers every site when the chosen ones hold nothing, and the search itself found nothing there', async () => {
    const { answer } = await ask({ query: 'kettle', sites: ['teapots.test'] });
    assert.deepEqual(answer, { results: [], tries: [{ query: 'kettle', language: 'en', why: 'every-site' }] });
  });

  it('adds no tries when none finds anything, nor to an answer with results or to a later page', async () => {
    assert.deepEqual((await ask({ query: 'yyppwwvv', language: 'fr' })).answer, { results: [] });
    assert.equal('tries' in (await ask({ query: 'kettle' })).answer, false);
    assert.deepEqual((await ask({ query: 'kettle', sites: ['teapots.test'], offset: 10 })).answer, { results: [] });
  });
});
