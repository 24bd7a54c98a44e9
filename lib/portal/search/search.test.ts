import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadPortalConfig } from '../config.ts';
import { cacheKey, normaliseSearch, SearchProxy, searchForMember, recentSearches, clearRecentSearches } from './search.ts';
import { readRateHeaders, type SearchFailed } from './upstream.ts';
import { createTeam } from '../teams/teams.ts';
import { account, memoryVault } from '../../../tests/helpers/portal-doubles.ts';
import { addKey, revokeKey } from '../keys/vault.ts';

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: SearchFailed) => ({ status: e.status, code: e.code, retryAfter: e.retryAfterSeconds, message: e.message }),
  );

describe("search rules (the service's own, lib/shared/protocol/search.ts)", () => {
  it('accepts 1 to 348 code points and normalises whitespace, Unicode form and the language', () => {
    assert.deepEqual(normaliseSearch({ query: '  asyncio \n\t gather ', language: 'PT-br' }), { query: 'asyncio gather', language: 'pt' });
    assert.deepEqual(normaliseSearch({ query: 'Cafe\u0301' }), { query: 'Café', language: 'en' });
    assert.equal(normaliseSearch({ query: '😀'.repeat(348) }).query.length, 696, 'emoji count as one character each');
    assert.deepEqual(normaliseSearch({ query: 'x', language: '' }), { query: 'x', language: 'en' });
  });

  it('refuses what the service refuses, naming the field', () => {
    const refused = (input: unknown) => {
      try {
        normaliseSearch(input);
        return null;
      } catch (err) {
        const e = err as SearchFailed;
        return { status: e.status, code: e.code, fields: e.body().issues?.map((i) => i.field) };
      }
    };
    assert.deepEqual(refused({ query: '   ' }), { status: 400, code: 'invalid', fields: ['query'] });
    assert.deepEqual(refused({ query: 'a'.repeat(349) }), { status: 400, code: 'invalid', fields: ['query'] });
    assert.deepEqual(refused({ query: '😀'.repeat(349) }), { status: 400, code: 'invalid', fields: ['query'] });
    assert.deepEqual(refused({ query: 'bad \ud800 text' }), { status: 400, code: 'invalid', fields: ['query'] });
    assert.deepEqual(refused({}), { status: 400, code: 'invalid', fields: ['query'] });
    assert.deepEqual(refused({ query: 42 }), { status: 400, code: 'invalid', fields: ['query'] });
    assert.deepEqual(refused({ query: 'ok', language: 'english' }), { status: 400, code: 'invalid', fields: ['language'] });
    assert.deepEqual(refused({ query: 'ok', language: 7 }), { status: 400, code: 'invalid', fields: ['language'] });
    assert.deepEqual(refused({ query: 'ok', exact: 'yes' }), { status: 400, code: 'invalid', fields: ['exact'] });
    assert.deepEqual(refused({ query: 'ok', exact: 1 }), { status: 400, code: 'invalid', fields: ['exact'] });
    assert.deepEqual(refused({ query: 'ok', count: 0 }), { status: 400, code: 'invalid', fields: ['count'] });
    assert.deepEqual(refused({ query: 'ok', offset: -10 }), { status: 400, code: 'invalid', fields: ['offset'] });
    assert.deepEqual(refused({ query: 'ok', offset: 195, count: 10 }), { status: 400, code: 'invalid', fields: ['offset'] });
    assert.deepEqual(refused({ query: 'ok', sites: ['https://a.test/'] }), { status: 400, code: 'invalid', fields: ['sites'] });
    assert.deepEqual(refused({ query: 'ok', excludeSites: 'a.test' }), { status: 400, code: 'invalid', fields: ['excludeSites'] });
  });

  it('passes the page and the sites on in normal form, leaving out what asks for nothing', () => {
    assert.deepEqual(normaliseSearch({ query: 'x', count: 10, offset: 20, sites: ['B.test', 'a.test', 'b.test'], excludeSites: [] }), {
      query: 'x',
      language: 'en',
      count: 10,
      offset: 20,
      sites: ['a.test', 'b.test'],
    });
    assert.deepEqual(normaliseSearch({ query: 'x', offset: 0, sites: [] }), { query: 'x', language: 'en' });
  });

  it('keys the cache by team, language and normalised query', () => {
    const a = cacheKey('t1', normaliseSearch({ query: ' asyncio  gather', language: 'EN' }));
    assert.equal(a, cacheKey('t1', normaliseSearch({ query: 'asyncio gather' })));
    assert.notEqual(a, cacheKey('t2', normaliseSearch({ query: 'asyncio gather' })));
    assert.notEqual(a, cacheKey('t1', normaliseSearch({ query: 'asyncio gather', language: 'fr' })));
    assert.notEqual(a, cacheKey('t1', normaliseSearch({ query: 'asyncio gather', exact: true })), 'as typed is another answer');
    assert.equal(a, cacheKey('t1', normaliseSearch({ query: 'asyncio gather', exact: false })));
  });

  it('keys the cache by the page and the sites too, in their normal form', () => {
    const key = (extra: Record<string, unknown>) => cacheKey('t1', normaliseSearch({ query: 'asyncio gather', ...extra }));
    const plain = key({});
    assert.equal(plain, key({ offset: 0, sites: [], excludeSites: [] }), 'nothing asked is the plain search');
    const variants = [
      { count: 10 },
      { count: 20 },
      { offset: 10 },
      { offset: 20 },
      { count: 10, offset: 10 },
      { sites: ['a.test'] },
      { sites: ['b.test'] },
      { sites: ['a.test', 'b.test'] },
      { excludeSites: ['a.test'] },
      { sites: ['a.test'], excludeSites: ['b.test'] },
      { sites: ['b.test'], excludeSites: ['a.test'] },
    ];
    const keys = variants.map(key);
    assert.equal(new Set([plain, ...keys]).size, variants.length + 1, 'every variant its own answer');
    assert.equal(key({ sites: ['B.test', 'a.test'] }), key({ sites: ['a.test', 'b.test', 'a.test'] }), 'order, case and repeats aside');
    assert.notEqual(cacheKey('t2', normaliseSearch({ query: 'asyncio gather', offset: 10 })), key({ offset: 10 }));
  });
});

describe('limit headers', () => {
  it('become data, with the window from RateLimit-Policy', () => {
    const h = new Headers({
      'x-ratelimit-limit': '40',
      'x-ratelimit-remaining': '39',
      'x-ratelimit-reset': '60',
      'ratelimit-policy': '"per-key";q=40;w=60',
    });
    assert.deepEqual(readRateHeaders(h), { limit: 40, remaining: 39, resetSeconds: 60, windowSeconds: 60 });
    assert.equal(readRateHeaders(new Headers()), null);
  });

  it('age: the reset counts down, and the quota is whole again after it', () => {
    const c = { t: 0 };
    const proxy = new SearchProxy({ url: 'http://x', cacheEntries: 1, cacheTtlMs: 1000 }, () => c.t);
    proxy.noteRate('k', { limit: 5, remaining: 0, resetSeconds: 10, windowSeconds: 60 });
    c.t = 4_000;
    assert.deepEqual(proxy.rateNow('k'), { limit: 5, remaining: 0, resetSeconds: 6, windowSeconds: 60 });
    c.t = 10_000;
    assert.deepEqual(proxy.rateNow('k'), { limit: 5, remaining: 5, resetSeconds: 0, windowSeconds: 60 });
  });
});

describe('searching as a member (against a double of the service interface)', () => {
  let server: Server;
  let url = '';
  const seen: { auth: string | undefined; body: string }[] = [];
  let mode: 'ok' | '401' | '429' | '502' | 'empty' | 'corrected' | 'paged' | 'tries' = 'ok';
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/healthz') {
          res.end(JSON.stringify({ status: 'ok', search: { pages: mode === 'empty' ? 0 : 3 } }));
          return;
        }
        seen.push({ auth: req.headers.authorization, body });
        const limits = {
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': String(5 - seen.length),
          'x-ratelimit-reset': '60',
          'ratelimit-policy': '"per-key";q=5;w=60',
          'content-type': 'application/json',
        };
        if (mode === '401') res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"missing or invalid API key"}');
        else if (mode === '429')
          res
            .writeHead(429, { ...limits, 'x-ratelimit-remaining': '0', 'retry-after': '7', 'x-ratelimit-reset': '7' })
            .end('{"error":"limit"}');
        else if (mode === '502') res.writeHead(502, limits).end('{"error":"index"}');
        else if (mode === 'empty') res.writeHead(200, limits).end('{"results":[]}');
        else if (mode === 'tries')
          res.writeHead(200, limits).end(
            JSON.stringify({
              results: [],
              tries: [
                { query: 'gather', language: 'de', sites: ['docs.test'], why: 'fewer-words' },
                { query: 'gather tasks', language: 'en', why: 'every-site' },
                { query: 'gather', language: 'de', why: 'a reason this portal does not know' },
                { query: '', language: 'de', why: 'one-word' },
              ],
            }),
          );
        else if (mode === 'paged') {
          // One result for each page; a next page up to offset 20, then none (and a next the portal cannot read at 5).
          const asked = JSON.parse(body) as { offset?: number; sites?: string[] };
          const offset = asked.offset ?? 0;
          const next = offset === 5 ? { offset: 'soon' } : offset < 20 ? { offset: offset + 10 } : undefined;
          res
            .writeHead(200, limits)
            .end(
              JSON.stringify({ results: [{ url: `https://${asked.sites?.[0] ?? 'a.test'}/${offset}`, title: 'A', snippet: 's' }], next }),
            );
        } else if (mode === 'corrected') {
          const asked = JSON.parse(body) as { query: string; exact?: boolean };
          res.writeHead(200, limits).end(
            JSON.stringify({
              results: [
                {
                  url: 'https://a.test/',
                  title: 'A',
                  snippet: 'about gather',
                  language: asked.exact ? 'xx-bad' : 'de',
                  section: asked.exact ? ['x'.repeat(81)] : ['Manual', 'Chapter 2'],
                  favicon: asked.exact ? 'javascript:alert(1)' : 'https://a.test/icon.png',
                },
              ],
              ...(asked.exact ? {} : { corrected: { query: 'gather' } }),
            }),
          );
        } else
          setTimeout(
            () =>
              res
                .writeHead(200, limits)
                .end(JSON.stringify({ results: [{ url: 'https://a.test/', title: 'A', snippet: `about ${JSON.parse(body).query}` }] })),
            20,
          );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  async function setup() {
    const v = memoryVault();
    const mk = (name: string) => account(v.data, name, `${name}@example.test`);
    const ann = await mk('ann');
    const bob = await mk('bob');
    const team = await createTeam(v.data, ann, { name: 'T' });
    const deps = { data: v.data, vault: v, search: new SearchProxy({ url, cacheEntries: 100, cacheTtlMs: 60_000 }) };
    seen.length = 0;
    mode = 'ok';
    return { v, ann, bob, team, deps };
  }

  it('checks membership first, then the rules, then the key, before any request', async () => {
    const { v, ann, bob, team, deps } = await setup();
    assert.equal((await failure(searchForMember(deps, bob, team.id, { query: '' }, { record: true })))?.status, 404);
    assert.equal((await failure(searchForMember(deps, ann, team.id, { query: '' }, { record: true })))?.code, 'invalid');
    assert.deepEqual((await failure(searchForMember(deps, ann, team.id, { query: 'x' }, { record: true })))?.code, 'no_key');
    assert.equal(seen.length, 0, 'nothing reached the service');
    const { token } = await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    const answer = await searchForMember(deps, ann, team.id, { query: ' gather  tasks ' }, { record: true });
    assert.deepEqual(
      [answer.query, answer.cached, answer.results[0]?.snippet, answer.rate?.remaining],
      ['gather tasks', false, 'about gather tasks', 4],
    );
    assert.equal(seen[0]?.auth, `Bearer ${token}`);
  });

  it("passes on the service's correction and each result's language, and asks for the words as typed when told", async () => {
    const { v, ann, team, deps } = await setup();
    await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    mode = 'corrected';
    const fixed = await searchForMember(deps, ann, team.id, { query: 'gahter' }, { record: true });
    assert.deepEqual([fixed.corrected, fixed.exact, fixed.results[0]?.language], ['gather', false, 'de']);
    assert.deepEqual([fixed.results[0]?.section, fixed.results[0]?.favicon], [['Manual', 'Chapter 2'], 'https://a.test/icon.png']);
    const typed = await searchForMember(deps, ann, team.id, { query: 'gahter', exact: true }, { record: true });
    assert.deepEqual([typed.corrected, typed.exact], [null, true]);
    assert.equal(typed.cached, false, 'the words as typed are another search');
    assert.deepEqual(
      Object.keys(typed.results[0]!).sort(),
      ['snippet', 'title', 'url'],
      'fields this portal cannot read (or show safely) are left out',
    );
    assert.deepEqual(
      seen.map((s) => JSON.parse(s.body) as unknown),
      [
        { query: 'gahter', language: 'en' },
        { query: 'gahter', language: 'en', exact: true },
      ],
    );
  });

  it("passes the page and the sites to the service, the service's next page back, and keeps each page apart", async () => {
    const { v, ann, team, deps } = await setup();
    await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    mode = 'paged';
    const first = await searchForMember(deps, ann, team.id, { query: 'gather', count: 10, sites: ['Docs.test'] }, { record: true });
    assert.deepEqual([first.offset, first.sites, first.excludeSites, first.next], [0, ['docs.test'], [], { offset: 10 }]);
    assert.equal(first.results[0]?.url, 'https://docs.test/0');
    const second = await searchForMember(
      deps,
      ann,
      team.id,
      { query: 'gather', count: 10, offset: 10, sites: ['docs.test'], excludeSites: ['x.docs.test'] },
      { record: true },
    );
    assert.deepEqual([second.offset, second.excludeSites, second.next, second.cached], [10, ['x.docs.test'], { offset: 20 }, false]);
    const last = await searchForMember(deps, ann, team.id, { query: 'gather', count: 10, offset: 20 }, { record: true });
    assert.deepEqual([last.next, last.results[0]?.url], [null, 'https://a.test/20']);
    const unreadable = await searchForMember(deps, ann, team.id, { query: 'gather', offset: 5 }, { record: true });
    assert.equal(unreadable.next, null, 'a next offset the portal cannot read is no next page');
    assert.deepEqual(
      seen.map((s) => JSON.parse(s.body) as unknown),
      [
        { query: 'gather', language: 'en', count: 10, sites: ['docs.test'] },
        { query: 'gather', language: 'en', count: 10, offset: 10, sites: ['docs.test'], excludeSites: ['x.docs.test'] },
        { query: 'gather', language: 'en', count: 10, offset: 20 },
        { query: 'gather', language: 'en', offset: 5 },
      ],
    );
    const again = await searchForMember(deps, ann, team.id, { query: 'gather', count: 10, sites: ['docs.test'] }, { record: true });
    assert.deepEqual([again.cached, again.next, again.results[0]?.url], [true, { offset: 10 }, 'https://docs.test/0']);
    // A further page is no new search: recent searches hold the first, as the box showed it.
    assert.deepEqual(
      (await recentSearches(v.data, ann)).map((s) => s.query),
      ['gather site:docs.test'],
    );
  });

  it("passes on the service's tries that it can read, and keeps them in the cache", async () => {
    const { v, ann, team, deps } = await setup();
    await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    mode = 'tries';
    const expected = [
      { query: 'gather', language: 'de', sites: ['docs.test'], excludeSites: [], why: 'fewer-words' },
      { query: 'gather tasks', language: 'en', sites: [], excludeSites: [], why: 'every-site' },
    ];
    const fresh = await searchForMember(deps, ann, team.id, { query: 'gather zzz tasks', language: 'de' }, { record: false });
    assert.deepEqual([fresh.results, fresh.tries, fresh.cached], [[], expected, false]);
    const again = await searchForMember(deps, ann, team.id, { query: 'gather zzz tasks', language: 'de' }, { record: false });
    assert.deepEqual([again.tries, again.cached], [expected, true]);
    assert.equal(seen.length, 1);
    mode = 'ok';
    assert.deepEqual((await searchForMember(deps, ann, team.id, { query: 'gather' }, { record: false })).tries, []);
  });

  it('answers a repeated or concurrent search from one request, without using quota', async () => {
    const { v, ann, team, deps } = await setup();
    await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    const many = await Promise.all(
      Array.from({ length: 8 }, () => searchForMember(deps, ann, team.id, { query: 'gather' }, { record: false })),
    );
    assert.equal(seen.length, 1);
    assert.equal(many.filter((a) => !a.cached).length, 1);
    const again = await searchForMember(deps, ann, team.id, { query: 'gather', language: 'EN' }, { record: false });
    assert.equal(again.cached, true);
    assert.equal(again.rate?.remaining, 4, 'the quota shown is the last one the service reported');
    assert.equal(seen.length, 1);
  });

  it("maps the service's refusals to codes the page acts on", async () => {
    const { v, ann, team, deps } = await setup();
    const k = await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    mode = '401';
    assert.deepEqual(await failure(searchForMember(deps, ann, team.id, { query: 'a1' }, { record: true })), {
      status: 403,
      code: 'key_refused',
      retryAfter: undefined,
      message: "The search service refused this team's API key (it is revoked or unknown).",
    });
    mode = '429';
    const limited = await failure(searchForMember(deps, ann, team.id, { query: 'a2' }, { record: true }));
    assert.deepEqual([limited?.status, limited?.code, limited?.retryAfter], [429, 'rate_limited', 7]);
    assert.deepEqual(deps.search.rateNow(k.key.id), { limit: 5, remaining: 0, resetSeconds: 7, windowSeconds: 60 });
    mode = '502';
    assert.equal((await failure(searchForMember(deps, ann, team.id, { query: 'a3' }, { record: true })))?.code, 'upstream_failed');
    mode = 'ok';
    assert.equal((await searchForMember(deps, ann, team.id, { query: 'a3' }, { record: true })).cached, false, 'failures are not cached');
    await revokeKey(v, ann, team.id, k.key.id);
    assert.equal(
      (await failure(searchForMember(deps, ann, team.id, { query: 'a3' }, { record: true })))?.code,
      'no_key',
      'a revoked key serves nothing, not even from the cache',
    );
    deps.search.settings.url = 'http://127.0.0.1:9';
    await addKey(v, ann, team.id, { mode: 'create', name: 'K2' });
    assert.equal(
      (await failure(searchForMember(deps, ann, team.id, { query: 'a4' }, { record: true })))?.code,
      'upstream_failed',
      'unreachable',
    );
    deps.search.settings.url = url;
  });

  it('says when the index is empty, and does not keep that answer', async () => {
    const { v, ann, team, deps } = await setup();
    await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    mode = 'empty';
    const a = await searchForMember(deps, ann, team.id, { query: 'anything' }, { record: true });
    assert.deepEqual([a.results.length, a.indexEmpty], [0, true]);
    assert.equal((await searchForMember(deps, ann, team.id, { query: 'anything' }, { record: true })).cached, false);
  });

  it("remembers each user's recent searches, newest first, until they clear them", async () => {
    const { v, ann, bob, team, deps } = await setup();
    await addKey(v, ann, team.id, { mode: 'create', name: 'K' });
    for (const q of ['one', 'two', 'one', 'three']) await searchForMember(deps, ann, team.id, { query: q }, { record: true });
    assert.deepEqual(
      (await recentSearches(v.data, ann)).map((s) => s.query),
      ['three', 'one', 'two'],
    );
    assert.deepEqual(await recentSearches(v.data, bob), []);
    for (let i = 0; i < 30; i++) await v.data.recordSearch(ann.userId, { query: `q${i}`, language: 'en', searchedAt: 1e13 + i }, 20);
    assert.equal((await v.data.recentSearches(ann.userId, 100)).length, 20);
    await clearRecentSearches(v.data, ann);
    assert.deepEqual(await recentSearches(v.data, ann), []);
  });
});

describe('configuration', () => {
  it('searches the embedded service by default; SEARCH_URL and the cache settings override', () => {
    const d = loadPortalConfig({ SERVICE_PORT: '4100' });
    assert.deepEqual(d.search, { url: 'http://127.0.0.1:4100', cacheEntries: 1000, cacheTtlMs: 300_000 });
    assert.equal(loadPortalConfig({ SERVICE_URL: 'https://api.example.test/' }).search.url, 'https://api.example.test');
    const c = loadPortalConfig({
      SEARCH_URL: 'https://search.example.test',
      PORTAL_SEARCH_CACHE_ENTRIES: '0',
      PORTAL_SEARCH_CACHE_TTL_SECONDS: '30',
    });
    assert.deepEqual(c.search, { url: 'https://search.example.test', cacheEntries: 0, cacheTtlMs: 30_000 });
    assert.throws(() => loadPortalConfig({ SEARCH_URL: 'ftp://x' }), /SEARCH_URL/);
  });
});
