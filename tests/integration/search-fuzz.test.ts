import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { page, runIndex } from '../helpers/search.ts';

/** A seeded generator, so a failure can be replayed with the seed it prints. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => ((s = (s ^ (s << 13)) >>> 0), (s = (s ^ (s >>> 17)) >>> 0), (s = (s ^ (s << 5)) >>> 0), s / 2 ** 32);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, pick };
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  '"',
  '\\',
  '*',
  'NEAR(a b)',
  'a OR b AND NOT c',
  '"unbalanced',
  '{title}: x',
  '^x',
  'a:b',
  '-x',
  '+x',
  'x*',
  '🫖'.repeat(348),
  'x'.repeat(348),
  'x'.repeat(349),
  '\u202e\u200b',
  'Ω≈ç√∫',
  '日本語のテキスト',
  'DROP TABLE pages; --',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '%00',
  '../../etc/passwd',
  'asyncio.gather',
  'pg_stat_activity',
  '....',
  '____',
  '.-_:/',
  'a.'.repeat(170),
  '１２３',
  'ǅ',
  'İ',
];

function randomText(r: ReturnType<typeof rng>, max: number): string {
  let out = '';
  const n = r.int(max);
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    out +=
      k < 5
        ? String.fromCharCode(32 + r.int(95))
        : k < 7
          ? String.fromCharCode(r.int(0x3000))
          : k < 8
            ? String.fromCharCode(0xd800 + r.int(0x800))
            : k < 9
              ? r.pick(['.', '_', '-', '"', '*', ':', '(', ')'])
              : String.fromCodePoint(0x1f300 + r.int(200));
  }
  return out;
}

function randomValue(r: ReturnType<typeof rng>, depth = 0): unknown {
  switch (r.int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.pick([0, -1, 1e308, -1e308, 3.14, 2 ** 53 + 1]);
    case 3:
      return r.pick(HOSTILE_STRINGS);
    case 4:
      return randomText(r, 400);
    case 5:
      return r.pick(['en', 'fr', 'zz', 'EN', 'pt-BR', 'e', 'eng', '', 'zh_TW', 'de-', 'x1']);
    case 6:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: r.int(4) }, () => [
          r.pick(['query', 'language', '__proto__', 'constructor', 'limit', 'x']),
          randomValue(r, depth + 1),
        ]),
      );
  }
}

function randomBody(r: ReturnType<typeof rng>): Buffer {
  switch (r.int(8)) {
    case 0:
      return Buffer.from(Array.from({ length: r.int(3000) }, () => r.int(256)));
    case 1:
      return Buffer.from(JSON.stringify(randomValue(r)) ?? 'undefined');
    case 2:
      return Buffer.from(`${'['.repeat(r.int(20000))}${']'.repeat(r.int(20000))}`);
    case 3:
      return Buffer.from(JSON.stringify({ query: randomValue(r), language: randomValue(r) }));
    case 4:
      return Buffer.from(JSON.stringify({ query: r.pick(HOSTILE_STRINGS), language: r.pick(['en', 'de', 'ja', 'xx', 'pt-BR']) }));
    case 5:
      return Buffer.from(`{"query": "${'\\u'.repeat(r.int(5))}${randomText(r, 50)}", "language": "en"`.slice(0, r.int(80)));
    case 6:
      return Buffer.from(JSON.stringify({ query: randomText(r, 350) }));
    default:
      return Buffer.from(`{"__proto__": {"query": "x"}, "query": ${JSON.stringify(randomText(r, 30))}, "query": 1}`);
  }
}

function post(url: string, token: string, body: Buffer, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: '/v0/search',
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('fuzzing POST /v0/search request bodies', () => {
  let service: ServiceProcess;
  let token: string;

  before(async () => {
    const site = mkdtempSync(join(tmpdir(), 'periscope-site-'));
    for (let i = 0; i < 30; i++)
      writeFileSync(
        join(site, `p${i}.html`),
        page(`Page ${i} asyncio.gather`, `<p>Text ${i} about pg_stat_activity, 日本語, kettles and routers number ${i}.</p>`),
      );
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    assert.equal(runIndex(dataDir, [site, '--base-url', 'https://fuzz.test/', '--quiet']).status, 0);
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    token = service.createKey({ name: 'fuzz', ratePerMinute: 1_000_000 }).token;
  });
  after(async () => {
    await service.stop();
  });

  it('3000 random and hostile bodies: never a 5xx, the process stays up and responsive', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
    const r = rng(seed);
    const seen = new Map<number, number>();
    const types = [
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/vnd.api+json',
      'application/jsonx',
      'multipart/form-data',
    ];
    let next = 0;
    const total = 3000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          next++;
          const body = randomBody(r);
          const status = await post(service.url, token, body, r.pick(types));
          seen.set(status, (seen.get(status) ?? 0) + 1);
          assert.ok(
            [200, 400, 413].includes(status),
            `seed ${seed}: status ${status} for body ${JSON.stringify(body.toString('utf8').slice(0, 200))}`,
          );
        }
      }),
    );
    assert.ok((seen.get(200) ?? 0) > 100, `seed ${seed}: some bodies were valid searches (${JSON.stringify([...seen])})`);
    assert.ok((seen.get(400) ?? 0) > 100, `seed ${seed}: some were refused (${JSON.stringify([...seen])})`);
    assert.equal(service.child.exitCode, null, 'the service is still running');
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    assert.equal(await post(service.url, token, Buffer.from('{"query":"kettles"}'), 'application/json'), 200);
    assert.ok(!service.logs.some((l) => l.level === 50 && l.msg === 'search failed'), 'no internal error was logged');
  });
});
