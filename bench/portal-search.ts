import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGunzip, gzipSync } from 'node:zlib';
import { warcRecords } from '#service/search/sources/warc.ts';
import { signedInUser, startApp } from './_portal.ts';
import { percentile, printTable, type Row } from './_stats.ts';

/**
 * `npm run bench -- portal-search`: latency of a search through the portal's route
 * (POST /api/teams/:teamId/search: session, membership, the team's key, the portal's cache) for a
 * cache miss and a cache hit, at 1 and 32 concurrent clients, against POST /v0/search on the
 * service straight, in the same run. The service's own answer cache is off, so a miss and a direct
 * call do the same work in the service; the difference is the portal's part.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const node = process.execPath;
const PORT = Number(process.env.BENCH_PORT ?? 3790);

type Q = { query: string; language: string };
const all: Q[] = readFileSync(join(CORPUS, 'queries-dev.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => {
    const [, , language = 'en', query = ''] = l.split('\t');
    return { query, language };
  });
// Distinct searches (the portal's cache key), so every "miss" really misses.
const seen = new Set<string>();
const queries = all.filter((q) => {
  const k = `${q.language}\n${q.query.normalize('NFC').replace(/\s+/gu, ' ').trim()}`;
  if (seen.has(k)) return false;
  seen.add(k);
  return true;
});

/** The Python documentation part of the corpus: a few hundred pages, indexed in seconds. */
async function slice(out: string): Promise<number> {
  const parts: Buffer[] = [];
  for await (const r of warcRecords(createReadStream(join(CORPUS, 'docs.warc.gz')).pipe(createGunzip()))) {
    if (r.type !== 'response' || !r.targetUri || !/^https:\/\/docs\.python\.org\//i.test(r.targetUri)) continue;
    const head = [...r.headers].map(([k, v]) => `${k}: ${v}`).join('\r\n');
    parts.push(gzipSync(Buffer.concat([Buffer.from(`WARC/1.0\r\n${head}\r\n\r\n`), r.content, Buffer.from('\r\n\r\n')])));
  }
  writeFileSync(out, Buffer.concat(parts));
  return parts.length;
}

async function run(work: Q[], clients: number, send: (q: Q) => Promise<Response>): Promise<{ times: number[]; seconds: number }> {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < work.length) {
        const q = work[next++] as Q;
        const t = performance.now();
        const res = await send(q);
        await res.arrayBuffer();
        times.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`status ${res.status} for ${JSON.stringify(q)}`);
      }
    }),
  );
  return { times, seconds: (performance.now() - t0) / 1000 };
}

const tmp = mkdtempSync(join(tmpdir(), 'periscope-bench-psearch-'));
const indexPath = join(tmp, 'index.db');
let stop: (() => Promise<void>) | null = null;
try {
  const warc = join(tmp, 'slice.warc.gz');
  const records = await slice(warc);
  const idx = spawnSync(node, [join(ROOT, 'server/cli/index.ts'), warc, '--quiet'], {
    env: { ...process.env, DATA_DIR: tmp, SEARCH_INDEX_PATH: indexPath },
    encoding: 'utf8',
  });
  if (idx.status !== 0) throw new Error(`index failed: ${idx.stderr}`);

  const app = await startApp(PORT, {
    SEARCH_INDEX_PATH: indexPath,
    SEARCH_CACHE_SIZE: '0',
    SEARCH_RATE_PER_MINUTE: '1000000',
    BROWSER_POOL_SIZE: '0',
    PORTAL_SEARCH_CACHE_ENTRIES: '100000',
    PORTAL_SEARCH_CACHE_TTL_SECONDS: '3600',
  });
  stop = () => app.stop();
  const { cookie, teamId } = await signedInUser(app.portalUrl);
  const created = await fetch(`${app.portalUrl}/api/teams/${teamId}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ mode: 'create', name: 'bench' }),
  });
  const { token } = (await created.json()) as { token: string };
  if (!token) throw new Error(`key creation failed: ${created.status}`);

  const json = { 'content-type': 'application/json' };
  const direct = (q: Q) =>
    fetch(`${app.serviceUrl}/v0/search`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${token}` },
      body: JSON.stringify(q),
    });
  const viaPortal = (q: Q) =>
    fetch(`${app.portalUrl}/api/teams/${teamId}/search`, { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify(q) });

  // Warm both processes (JIT, page cache, Next's route bundle) on searches not used below.
  const warm = queries.slice(0, 40);
  await run(warm, 4, direct);
  await run(warm, 4, viaPortal);

  const one = queries.slice(40, 140);
  const many = queries.slice(140, 140 + 320);
  const rows: Row[] = [];
  const add = (what: string, clients: number, r: { times: number[]; seconds: number }) =>
    rows.push({
      what,
      clients,
      n: r.times.length,
      'p50 ms': percentile(r.times, 0.5),
      'p95 ms': percentile(r.times, 0.95),
      'p99 ms': percentile(r.times, 0.99),
      'req/s': r.times.length / r.seconds,
    });
  for (const [clients, set] of [
    [1, one],
    [32, many],
  ] as const) {
    add('service straight (/v0/search)', clients, await run(set, clients, direct));
    add('portal route, cache miss', clients, await run(set, clients, viaPortal));
    add('portal route, cache hit', clients, await run(set, clients, viaPortal));
    add(
      'portal floor: GET /api/me (session only)',
      clients,
      await run(set, clients, () => fetch(`${app.portalUrl}/api/me`, { headers: { cookie } })),
    );
  }
  const check = (await (await viaPortal(one[0] as Q)).json()) as { cached: boolean };
  if (!check.cached) throw new Error('a repeated search was not answered from the portal cache');

  console.log(
    `\nindex: ${records} records of the corpus (docs.python.org); ${queries.length} distinct judged queries; service answer cache off`,
  );
  printTable('Search latency: the portal route (session, membership, team key, cache) against the service straight', rows);
  const p50 = (w: string, c: number) => Number(rows.find((r) => r.what === w && r.clients === c)?.['p50 ms']);
  for (const c of [1, 32]) {
    console.log(
      `${c} client(s): portal overhead on a miss ${(p50('portal route, cache miss', c) - p50('service straight (/v0/search)', c)).toFixed(2)} ms at p50; a hit is ${(p50('service straight (/v0/search)', c) / p50('portal route, cache hit', c)).toFixed(1)}x the speed of the service straight`,
    );
  }
} finally {
  await stop?.();
  rmSync(tmp, { recursive: true, force: true });
}
