import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { page, runIndex, search } from '../helpers/search.ts';

const RATE_HEADERS = ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function assertRateHeaders(h: Headers, limit: number) {
  for (const name of RATE_HEADERS) assert.ok(h.get(name) !== null, `missing ${name}`);
  assert.equal(h.get('x-ratelimit-limit'), String(limit));
  assert.match(h.get('ratelimit-policy') ?? '', new RegExp(`^"per-key";q=${limit};w=\\d+$`));
  assert.match(h.get('ratelimit') ?? '', /^"per-key";r=\d+;t=\d+$/);
}

/** Raw HTTP, for what fetch will not send (a Content-Length that the body never reaches). */
function raw(
  url: string,
  opts: { headers: Record<string, string>; body?: Buffer; chunks?: number; chunkSize?: number },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: '/v0/search', method: 'POST', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    for (let i = 0; i < (opts.chunks ?? 0); i++) if (!req.write(Buffer.alloc(opts.chunkSize ?? 1024, 'a'))) break;
    req.end();
  });
}

describe('POST /v0/search: statuses, headers and limits', () => {
  let service: ServiceProcess;
  let token: string;

  before(async () => {
    const site = mkdtempSync(join(tmpdir(), 'periscope-site-'));
    mkdirSync(join(site, 'guide'));
    writeFileSync(
      join(site, 'index.html'),
      page('Falcot handbook', '<h1>Falcot handbook</h1><p>Welcome to the Falcot Corp documentation about routers and kettles.</p>'),
    );
    writeFileSync(
      join(site, 'guide', 'kettle.html'),
      page(
        'Descaling the kettle',
        '<h1>Descaling the kettle</h1><p>Use citric acid to descale the kettle every month; pg_stat_activity shows nothing here.</p>',
      ),
    );
    writeFileSync(
      join(site, 'guide', 'router.html'),
      page('Router setup', '<h1>Router setup</h1><p>Configure the router with the falcot_router_mode setting and restart it.</p>'),
    );
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const r = runIndex(dataDir, [site, '--base-url', 'https://docs.falcot.test/', '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    token = service.createKey({ name: 'api' }).token;
  });
  after(async () => {
    await service.stop();
  });

  it('200: ranked results with url, title and snippet, and the limit headers', async () => {
    const r = await search(service.url, token, { query: 'descale kettle' });
    assert.equal(r.status, 200);
    const results = r.json.results as { url: string; title: string; snippet: string }[];
    assert.equal(results[0]?.url, 'https://docs.falcot.test/guide/kettle.html');
    assert.equal(results[0]?.title, 'Descaling the kettle');
    assert.match(results[0]?.snippet ?? '', /citric acid/);
    assert.doesNotMatch(results[0]?.snippet ?? '', /Copyright footer|Home About/);
    assert.deepEqual(Object.keys(results[0] ?? {}).sort(), ['language', 'snippet', 'title', 'url']);
    assert.equal((results[0] as { language?: string }).language, 'en');
    assertRateHeaders(r.headers, 40);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  });

  it('an identifier is found as typed', async () => {
    const r = await search(service.url, token, { query: 'falcot_router_mode', language: 'en' });
    assert.equal((r.json.results as { url: string }[])[0]?.url, 'https://docs.falcot.test/guide/router.html');
  });

  it('a misspelt word is corrected and the answer says so; exact searches the words as typed', async () => {
    const { token: own } = service.createKey({ name: 'typos' });
    const r = await search(service.url, own, { query: 'Descalign the ketle' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.corrected, { query: 'Descaling the kettle' });
    assert.equal((r.json.results as { url: string }[])[0]?.url, 'https://docs.falcot.test/guide/kettle.html');
    const exact = await search(service.url, own, { query: 'Descalign the ketle', exact: true });
    assert.equal(exact.status, 200);
    assert.equal('corrected' in exact.json, false);
    assert.deepEqual(exact.json.results, []);
    // A query the index holds every word of answers as before: no `corrected`.
    const clean = await search(service.url, own, { query: 'descale kettle', exact: false });
    assert.deepEqual(Object.keys(clean.json), ['results']);
  });

  it('a page holding less than half of the words is no answer: nonsense finds nothing', async () => {
    const { token: own } = service.createKey({ name: 'noise' });
    const none = await search(service.url, own, { query: 'qwzxplkjh kettle zzyzx' });
    assert.equal(none.status, 200);
    assert.deepEqual(none.json.results, []);
    const half = await search(service.url, own, { query: 'kettle zzyzx' });
    assert.equal((half.json.results as { url: string }[])[0]?.url, 'https://docs.falcot.test/guide/kettle.html');
  });

  it('401 without a key or with a bad one, with no limit headers', async () => {
    for (const t of [null, 'psk_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'nonsense']) {
      const r = await search(service.url, t, { query: 'kettle' });
      assert.equal(r.status, 401);
      assert.equal(typeof r.json.error, 'string');
      assert.equal(r.json.code, 'unauthorized');
      assert.equal(r.headers.get('x-ratelimit-limit'), null);
    }
  });

  it('400 names each offending field', async () => {
    const cases: [unknown, string[]][] = [
      [{ query: '' }, ['query']],
      [{ query: 'x'.repeat(349) }, ['query']],
      [{}, ['query']],
      [{ query: 42 }, ['query']],
      [{ query: 'kettle', language: 'english' }, ['language']],
      [{ query: 'kettle', language: 7 }, ['language']],
      [{ query: '', language: 'x' }, ['query', 'language']],
      [{ query: 'kettle', exact: 'yes' }, ['exact']],
      [{ query: 'kettle', exact: 1 }, ['exact']],
      [{ query: '', exact: null }, ['query', 'exact']],
      [[{ query: 'kettle' }], ['body']],
      ['{"query": "kettle"', ['body']],
      ['null', ['body']],
    ];
    for (const [body, fields] of cases) {
      const r = await search(service.url, token, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(typeof r.json.error, 'string');
      assert.equal(r.json.code, 'invalid');
      const issues = r.json.issues as { field: string; message: string }[];
      assert.deepEqual([...new Set(issues.map((i) => i.field))].sort(), [...fields].sort(), JSON.stringify(body));
      assertRateHeaders(r.headers, 40);
    }
  });

  it('query length is counted in characters (code points), 348 at most', async () => {
    assert.equal((await search(service.url, token, { query: '🫖'.repeat(348) })).status, 200);
    assert.equal((await search(service.url, token, { query: '🫖'.repeat(349) })).status, 400);
    assert.equal((await search(service.url, token, { query: 'a'.repeat(348), language: 'pt-BR', unknown: true })).status, 200);
  });

  it('400 for a wrong content type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      const r = await search(service.url, token, { query: 'kettle' }, { 'content-type': type });
      assert.equal(r.status, 400, type);
      assert.equal((r.json.issues as { field: string }[])[0]?.field, 'content-type');
    }
    assert.equal(
      (await search(service.url, token, { query: 'kettle' }, { 'content-type': 'application/json; charset=utf-8' })).status,
      200,
    );
  });

  it('413 for an oversized body, answered before the body is read', async () => {
    // Declares 50 MB but sends almost nothing: the answer cannot come from reading it whole.
    const declared = await raw(service.url, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) },
      body: Buffer.from('{"query":'),
    });
    assert.equal(declared.status, 413);
    assert.equal(typeof JSON.parse(declared.body).error, 'string');
    assert.equal(JSON.parse(declared.body).code, 'payload_too_large');
    assert.equal(declared.headers.connection, 'close');
    assert.ok(declared.headers['x-ratelimit-limit']);
    // Chunked, no length declared: refused once it passes the limit.
    const chunked = await raw(service.url, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: 64,
      chunkSize: 1024,
    });
    assert.equal(chunked.status, 413);
  });

  it('JSON 404 and 405', async () => {
    const nf = await fetch(`${service.url}/v0/searches`, { method: 'POST' });
    assert.equal(nf.status, 404);
    assert.equal(typeof ((await nf.json()) as { error: string }).error, 'string');
    const na = await fetch(`${service.url}/v0/search`);
    assert.equal(na.status, 405);
    assert.equal(na.headers.get('allow'), 'POST');
    assert.equal(typeof ((await na.json()) as { error: string }).error, 'string');
  });

  it('the 41st request inside a minute gets 429 with Retry-After; a fresh key is not affected', async () => {
    const { token: limited } = service.createKey({ name: 'limited' });
    for (let i = 1; i <= 40; i++) {
      const r = await search(service.url, limited, i % 2 ? { query: 'kettle' } : { query: '' });
      assert.ok(r.status === 200 || r.status === 400, `request ${i}: ${r.status}`);
      assert.equal(r.headers.get('x-ratelimit-remaining'), String(40 - i));
    }
    const r = await search(service.url, limited, { query: 'kettle' });
    assert.equal(r.status, 429);
    assert.equal(typeof r.json.error, 'string');
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 61, String(retry));
    assertRateHeaders(r.headers, 40);
    assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    // A refused request does not count: still refused, not further behind.
    assert.equal((await search(service.url, limited, { query: 'kettle' })).status, 429);
    assert.equal((await search(service.url, token, { query: 'kettle' })).status, 200);
  });
});

describe('POST /v0/search: the window frees up again (2 s window, 3 requests)', () => {
  let service: ServiceProcess;
  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0', SEARCH_RATE_WINDOW_SECONDS: '2', SEARCH_RATE_PER_MINUTE: '3' });
  });
  after(async () => {
    await service.stop();
  });

  it('refuses the 4th request and accepts one again after Retry-After', async () => {
    const { token } = service.createKey({ name: 'small' });
    for (let i = 0; i < 3; i++) assert.equal((await search(service.url, token, { query: 'anything' })).status, 200);
    const refused = await search(service.url, token, { query: 'anything' });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.code, 'rate_limited');
    const retry = Number(refused.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 3, String(retry));
    await new Promise((r) => setTimeout(r, retry * 1000 + 100));
    const again = await search(service.url, token, { query: 'anything' });
    assert.equal(again.status, 200);
  });

  it('a fresh install has an empty index and says how to fill it', async () => {
    const { token } = service.createKey({ name: 'empty' });
    const r = await search(service.url, token, { query: 'anything' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.results, []);
    const health = (await (await fetch(`${service.url}/healthz`)).json()) as { search: { pages: number; note: string } };
    assert.equal(health.search.pages, 0);
    assert.match(health.search.note, /npm run index/);
    assert.ok(service.logs.some((l) => typeof l.msg === 'string' && /search index is empty.*npm run index/.test(l.msg)));
  });
});

describe('POST /v0/search: a backend that cannot answer gives 502', () => {
  let service: ServiceProcess;
  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    // The index path points at a file that is not a SQLite database.
    writeFileSync(join(dataDir, 'broken.db'), Buffer.alloc(8192, 0x5a));
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0', SEARCH_INDEX_PATH: 'broken.db' });
  });
  after(async () => {
    await service.stop();
  });

  it('502 with { error, code } and the limit headers; the service stays up', async () => {
    const { token } = service.createKey({ name: 'broken' });
    const r = await search(service.url, token, { query: 'kettle' });
    assert.equal(r.status, 502);
    assert.equal(typeof r.json.error, 'string');
    assert.deepEqual(Object.keys(r.json), ['error', 'code']);
    assert.equal(r.json.code, 'bad_gateway');
    assertRateHeaders(r.headers, 40);
    const health = await fetch(`${service.url}/healthz`);
    assert.equal(health.status, 200);
    assert.ok(((await health.json()) as { search: { error?: string } }).search.error);
    // Validation still comes first.
    assert.equal((await search(service.url, token, { query: '' })).status, 400);
  });
});
