import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { httpResponse, runIndex, search, warcRecord } from '../helpers/search.ts';

type Result = { url: string; title: string; snippet: string; language?: string; section?: string[] };
type Answer = { results: Result[]; next?: { offset: number }; corrected?: unknown };

const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const html = (title: string, body: string, crumbs = '') =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main>${crumbs}<h1>${title}</h1><p>${body}</p></main></body></html>`;

/**
 * Pages that all hold "kettle": 150 on kettles.test that say it often; 30 on teapots.test, 15 on
 * docs.teapots.test and 5 on notteapots.test that say it once in long text, so that the first
 * stage's best 60 are all on kettles.test. The teapot pages carry a breadcrumb (a section path).
 */
function corpus(): Buffer {
  const records: Buffer[] = [];
  const add = (url: string, body: string) => records.push(gzipSync(warcRecord('response', url, httpResponse(body))));
  for (let i = 0; i < 150; i++)
    add(
      `https://kettles.test/k${i}.html`,
      html(`Kettle ${i}`, `${'kettle '.repeat(1 + (i % 7))} boils water, note ${i}. ${filler(i % 11)}`),
    );
  const crumbs = '<ol class="breadcrumb"><li><a href="/">Teapot Manual</a></li><li><a href="/pots/">Chapter 1. Pots</a></li></ol>';
  for (let i = 0; i < 50; i++) {
    const host = i < 30 ? 'teapots.test' : i < 45 ? 'docs.teapots.test' : 'notteapots.test';
    add(`https://${host}/t${i}.html`, html(`Teapot ${i}`, `A teapot stands beside a kettle. ${filler(200 + i)}`, crumbs));
  }
  return Buffer.concat(records);
}

describe('POST /v0/search: count, offset and site filters on a real index', () => {
  let service: ServiceProcess;
  let token: string;
  const ask = async (body: Record<string, unknown>): Promise<Answer> => {
    const r = await search(service.url, token, { query: 'kettle', exact: true, ...body });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json as Answer;
  };
  const urls = async (body: Record<string, unknown>) => (await ask(body)).results.map((r) => r.url);

  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const warc = join(dataDir, 'pages.warc.gz');
    writeFileSync(warc, corpus());
    const r = runIndex(dataDir, [warc, '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    // SEARCH_RESULTS is the default count; two query workers, as a service runs them.
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0', SEARCH_RESULTS: '8', SEARCH_WORKERS: '2' });
    token = service.createKey({ name: 'paging', ratePerMinute: 100_000 }).token;
  });
  after(async () => {
    await service.stop();
  });

  it('without count, SEARCH_RESULTS results; with it, that many', async () => {
    const plain = await ask({});
    assert.equal(plain.results.length, 8);
    assert.deepEqual(plain.next, { offset: 8 });
    assert.equal((await ask({ count: 1 })).results.length, 1);
    assert.equal((await ask({ count: 50 })).results.length, 50);
  });

  it('pages followed by `next` are disjoint, consecutive, and the slices of one deep list; the last has no next', async () => {
    const deep = [...(await urls({ count: 50 })), ...(await urls({ count: 50, offset: 50 })), ...(await urls({ count: 50, offset: 100 }))];
    assert.equal(deep.length, 150);
    assert.equal(new Set(deep).size, deep.length, 'no address twice');
    const paged: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const a = await ask({ count: 10, offset });
      paged.push(...a.results.map((r) => r.url));
      if (a.next) assert.equal(a.next.offset, offset + 10);
      offset = a.next?.offset;
    }
    // Every page holds "kettle": 200 of them, paged to the end of the 200.
    assert.equal(paged.length, 200);
    assert.deepEqual(paged.slice(0, 150), deep);
    assert.equal(new Set(paged).size, 200);
    assert.deepEqual(await urls({ count: 7, offset: 3 }), deep.slice(3, 10));
    // A query with fewer results: the page that holds the last has no next.
    const teapot = await search(service.url, token, { query: 'teapot', count: 20, offset: 40 });
    assert.equal((teapot.json as Answer).results.length, 10);
    assert.equal('next' in teapot.json, false);
    const before = await search(service.url, token, { query: 'teapot', count: 20, offset: 20 });
    assert.deepEqual((before.json as Answer).next, { offset: 40 });
    const past = await search(service.url, token, { query: 'teapot', offset: 60 });
    assert.deepEqual(past.json, { results: [] });
  });

  it('results are paged 200 deep: the page ending at 200 has no next, one beyond it is a 400 naming offset', async () => {
    const last = await ask({ count: 10, offset: 190 });
    assert.equal(last.results.length, 10);
    assert.equal(last.next, undefined);
    assert.deepEqual((await ask({ count: 10, offset: 180 })).next, { offset: 190 });
    assert.equal((await ask({ count: 50, offset: 150 })).results.length, 50);
    for (const body of [{ offset: 193 }, { count: 10, offset: 191 }, { count: 50, offset: 151 }, { offset: 200, count: 1 }]) {
      const r = await search(service.url, token, { query: 'kettle', ...body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.deepEqual(
        (r.json.issues as { field: string }[]).map((i) => i.field),
        ['offset'],
      );
      assert.match((r.json.issues as { message: string }[])[0]?.message ?? '', /at most 200/);
    }
  });

  it('sites: only those hosts and the hosts under them, a full page although none ranked in the first 60', async () => {
    assert.ok((await urls({ count: 50 })).every((u) => u.startsWith('https://kettles.test/')));
    const teapots = await ask({ sites: ['Teapots.TEST'], count: 10 });
    assert.equal(teapots.results.length, 10);
    assert.deepEqual(teapots.next, { offset: 10 });
    const all = await urls({ sites: ['teapots.test'], count: 50 });
    assert.equal(all.length, 45, '30 on teapots.test, 15 on docs.teapots.test, none on notteapots.test');
    assert.ok(all.every((u) => /^https:\/\/(docs\.)?teapots\.test\//.test(u)));
    assert.equal((await urls({ sites: ['docs.teapots.test'], count: 50 })).length, 15);
    assert.equal((await urls({ sites: ['teapots.test', 'notteapots.test'], count: 50 })).length, 50);
    // Paged under a filter: the same pages one deep request gives.
    const paged = [
      ...(await urls({ sites: ['teapots.test'], count: 20 })),
      ...(await urls({ sites: ['teapots.test'], count: 20, offset: 20 })),
    ];
    assert.deepEqual(paged, all.slice(0, 40));
  });

  it('excludeSites: none of those hosts or the hosts under them; an exclusion wins over sites', async () => {
    const rest = await urls({ excludeSites: ['kettles.test'], count: 50 });
    assert.equal(rest.length, 50);
    assert.ok(rest.every((u) => !u.startsWith('https://kettles.test/')));
    const noDocs = await urls({ sites: ['teapots.test'], excludeSites: ['docs.teapots.test'], count: 50 });
    assert.equal(noDocs.length, 30);
    assert.ok(noDocs.every((u) => u.startsWith('https://teapots.test/')));
    const notTeapots = await urls({ excludeSites: ['teapots.test', 'kettles.test'], count: 50 });
    assert.deepEqual(notTeapots.map((u) => new URL(u).host).sort(), Array(5).fill('notteapots.test'));
  });

  it('every result says its language and section as far as the page did, on deep pages and under filters too', async () => {
    const deep = await ask({ sites: ['teapots.test'], count: 10, offset: 30 });
    assert.equal(deep.results.length, 10);
    for (const r of deep.results) {
      assert.equal(r.language, 'en', r.url);
      assert.deepEqual(r.section, ['Teapot Manual', 'Chapter 1. Pots', r.title], r.url);
    }
    for (const r of (await ask({ count: 10, offset: 140 })).results) {
      assert.equal(r.language, 'en', r.url);
      assert.equal(r.section, undefined, 'no breadcrumb: no section');
    }
  });

  it('the answer cache tells the new fields apart', async () => {
    // Each of these asked twice: the second comes from the service's cache, and must still be its own answer.
    const asks = [
      {},
      { offset: 8 },
      { count: 9 },
      { sites: ['docs.teapots.test'] },
      { sites: ['notteapots.test'] },
      { excludeSites: ['kettles.test', 'notteapots.test', 'docs.teapots.test'] },
    ];
    const first = await Promise.all(asks.map((b) => urls(b)));
    const again = await Promise.all(asks.map((b) => urls(b)));
    assert.deepEqual(again, first);
    assert.equal(new Set(first.map((l) => JSON.stringify(l))).size, asks.length, 'six requests, six different answers');
  });

  it('a bad value of every new field is a 400 naming that field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ count: 0 }, 'count'],
      [{ count: 51 }, 'count'],
      [{ count: '10' }, 'count'],
      [{ count: 1.5 }, 'count'],
      [{ offset: -1 }, 'offset'],
      [{ offset: '0' }, 'offset'],
      [{ offset: 2.5 }, 'offset'],
      [{ sites: 'teapots.test' }, 'sites'],
      [{ sites: ['https://teapots.test'] }, 'sites'],
      [{ sites: ['teapots.test/t1.html'] }, 'sites'],
      [{ sites: ['teapots.test:443'] }, 'sites'],
      [{ sites: [''] }, 'sites'],
      [{ sites: Array.from({ length: 21 }, (_, i) => `h${i}.test`) }, 'sites'],
      [{ excludeSites: [42] }, 'excludeSites'],
      [{ excludeSites: ['*.teapots.test'] }, 'excludeSites'],
      [{ excludeSites: null }, 'excludeSites'],
    ];
    for (const [body, field] of cases) {
      const r = await search(service.url, token, { query: 'kettle', ...body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.code, 'invalid');
      assert.deepEqual([...new Set((r.json.issues as { field: string }[]).map((i) => i.field))], [field], JSON.stringify(body));
    }
    // Unknown fields stay ignored.
    assert.equal((await search(service.url, token, { query: 'kettle', page: 2, site: 'x' })).status, 200);
  });
});
