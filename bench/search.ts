import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseQuery } from '../lib/search/tokenize.ts';
import { matchAny } from '../lib/search/sqlite/match.ts';
import { FIELD_WEIGHTS } from '../lib/search/sqlite/backend.ts';

/**
 * `npm run bench -- search`: index the corpus with `npm run index` (pages/s), then time the
 * corpus's queries through POST /v0/search at 1 and 16 concurrent clients, with the answer cache
 * off (every query does the full work, on the service's query workers) and on (repeated queries),
 * against the same queries run straight on the FTS5 table in this process (BM25 only), and print a
 * table. The clients are closed-loop (each sends its next query when the last answer is in) over
 * kept-alive node:http connections, the lightest client at hand: client and service share the
 * machine's cores, so a heavy client would be measured as service latency.
 * Targets: corpus indexed in under 60 s; p50 < 5 ms and p99 < 25 ms at 16 clients.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const node = process.execPath;

const queries = readFileSync(join(CORPUS, 'queries-dev.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => {
  const [, , language = 'en', query = ''] = l.split('\t');
  return { query, language };
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] as number;
};

async function startService(dataDir: string, cacheSize: number): Promise<{ url: string; child: ChildProcess }> {
  const env = { ...process.env, DATA_DIR: dataDir, SERVICE_PORT: '0', HOST: '127.0.0.1', BROWSER_POOL_SIZE: '0', LOG_LEVEL: 'warn', SEARCH_CACHE_SIZE: String(cacheSize) };
  const child = spawn(node, [join(ROOT, 'server/service/main.ts')], { env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (c: Buffer) => {
      buf += c.toString();
      const m = /"url":"(http:[^"]+)","publicUrl".*"msg":"service listening"/.exec(buf);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  return { url, child };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v0/search`, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function timeApi(url: string, token: string, clients: number, rounds: number): Promise<number[]> {
  const times: number[] = [];
  const work = Array.from({ length: rounds }, () => queries).flat();
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < work.length) {
      const q = work[next++] as { query: string; language: string };
      const t0 = performance.now();
      const status = await post(url, token, JSON.stringify(q));
      times.push(performance.now() - t0);
      if (status !== 200) throw new Error(`status ${status}`);
    }
  }));
  return times;
}

function timeFts(file: string): number[] {
  const db = new DatabaseSync(file, { readOnly: true });
  const w = FIELD_WEIGHTS;
  const weights = [w.title, w.headings, w.url, w.terms, w.anchors, w.body].join(', ');
  const st = db.prepare(`SELECT rowid, bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT 10`);
  const times: number[] = [];
  for (const q of queries) {
    const p = parseQuery(q.query);
    const concepts = p.concepts.filter((c) => !c.stop);
    const t0 = performance.now();
    st.all(matchAny(concepts.length ? concepts : p.concepts, p.joins));
    times.push(performance.now() - t0);
  }
  db.close();
  return times;
}

const dataDir = mkdtempSync(join(tmpdir(), 'periscope-bench-'));
const services: ChildProcess[] = [];
try {
  const t0 = performance.now();
  const idx = spawnSync(node, [join(ROOT, 'server/cli/index.ts'), join(CORPUS, 'docs.warc.gz'), '--quiet'], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' });
  const indexSeconds = (performance.now() - t0) / 1000;
  if (idx.status !== 0) throw new Error(`index failed: ${idx.stderr}`);
  const pages = Number(/now holds (\d+) pages/.exec(idx.stdout)?.[1]);
  const records = Number(/indexed (\d+) pages/.exec(idx.stdout)?.[1]);

  const keys = spawnSync(node, [join(ROOT, 'server/cli/keys.ts'), 'create', '--name', 'bench', '--rate-per-minute', '1000000'], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' });
  const token = keys.stdout.trim().split('\n').pop() as string;

  const rows: [string, number[]][] = [];
  const fts = timeFts(join(dataDir, 'index.db'));
  const cold = await startService(dataDir, 0);
  services.push(cold.child);
  await timeApi(cold.url, token, 4, 1); // warm the process (JIT, page cache)
  rows.push(['API, 1 client, no answer cache', await timeApi(cold.url, token, 1, 1)]);
  rows.push(['API, 16 clients, no answer cache', await timeApi(cold.url, token, 16, 2)]);
  cold.child.kill('SIGTERM');
  const warm = await startService(dataDir, 2000);
  services.push(warm.child);
  await timeApi(warm.url, token, 4, 1);
  rows.push(['API, 1 client, answers cached', await timeApi(warm.url, token, 1, 1)]);
  rows.push(['API, 16 clients, answers cached', await timeApi(warm.url, token, 16, 2)]);
  rows.push(['FTS5 bm25() straight, 1 client', fts]);

  const ftsP50 = pct(fts, 0.5);
  const ftsP99 = pct(fts, 0.99);
  console.log(`\ncorpus: ${records} records -> ${pages} pages indexed in ${indexSeconds.toFixed(1)} s = ${(records / indexSeconds).toFixed(0)} records/s, ${(pages / indexSeconds).toFixed(0)} pages/s (target < 60 s)`);
  console.log(`queries: the corpus's ${queries.length} judged queries, 10 results each\n`);
  console.log(`${'what'.padEnd(36)} ${'n'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'p50/FTS'.padStart(8)} ${'p99/FTS'.padStart(8)}`);
  for (const [label, t] of rows) {
    const p50 = pct(t, 0.5);
    const p99 = pct(t, 0.99);
    console.log(`${label.padEnd(36)} ${String(t.length).padStart(5)} ${p50.toFixed(2).padStart(8)} ${p99.toFixed(2).padStart(8)} ${(p50 / ftsP50).toFixed(1).padStart(8)} ${(p99 / ftsP99).toFixed(1).padStart(8)}`);
  }
  console.log(`\nquery workers: ${process.env.SEARCH_WORKERS ?? 'default'}; cores: ${availableParallelism()}; load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('targets at 16 clients: p50 < 5 ms, p99 < 25 ms');
} finally {
  agent.destroy();
  for (const s of services) if (s.exitCode === null) s.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
}
