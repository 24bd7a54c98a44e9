import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchConnection } from './_http.ts';

/** What the search benches share (search.ts, search-scale.ts): the corpus's judged queries, a
 * service to time, closed-loop clients, and `npm run index` of a corpus with a key. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const node = process.execPath;

export type Kind = 'known-item' | 'natural';
export type Query = { query: string; language: string; kind: Kind };
export const KINDS: readonly Kind[] = ['known-item', 'natural'];

/** One of the corpus's query files as search requests of one kind. */
const readQueries = (file: string, kind: Kind): Query[] =>
  readFileSync(join(CORPUS, file), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => {
      const [, , language = 'en', query = ''] = l.split('\t');
      return { query, language, kind };
    });

/** The dev queries (known-item and language pairs, 650) and the natural questions (1,435), interleaved
 * evenly (each at its relative position in its own file) so that every stretch of a timed run carries
 * both kinds in proportion. Every timing below is in this order, pass after pass: `times[i]` is the
 * time of `queries[i % queries.length]`, which is how the rows are split by kind. */
export const queries: Query[] = [readQueries('queries-dev.tsv', 'known-item'), readQueries('queries-natural-dev.tsv', 'natural')]
  .flatMap((list) => list.map((q, i) => ({ q, at: (i + 0.5) / list.length })))
  .sort((a, b) => a.at - b.at)
  .map(({ q }) => q);
export const count = (kind: Kind) => queries.filter((q) => q.kind === kind).length;

/** The times of one kind's queries out of a timing in the order of `queries`. */
export const ofKind = (times: number[], kind: Kind) => times.filter((_, i) => (queries[i % queries.length] as Query).kind === kind);

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] as number;
};

/** The service of the version checked out at `root` (this tree, or the baseline's worktree). */
export async function startService(
  root: string,
  dataDir: string,
  cacheSize: number,
  extra: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    SERVICE_PORT: '0',
    HOST: '127.0.0.1',
    BROWSER_POOL_SIZE: '0',
    LOG_LEVEL: 'warn',
    SEARCH_CACHE_SIZE: String(cacheSize),
    ...extra,
  };
  const child = spawn(node, [join(root, 'server/service/main.ts')], {
    env: { ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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

/** The queries `rounds` times over by `clients` closed-loop clients, spread over `urls` as a
 * round-robin balancer spreads kept-alive connections; each answer's time (in the order of the
 * work, not of the answers), and the whole run's. */
/**
 * What process `pid` holds in memory now and at most, in MB (Linux's /proc; null elsewhere): `anon`
 * is its own (heap, buffers, SQLite's caches), `peak` its largest resident set, which counts the
 * index file's pages read through SQLite's memory map too (the OS's cache, given back under pressure).
 */
export function memoryMb(pid: number | undefined): { anon: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    const [anon, peak] = [kb('RssAnon'), kb('VmHWM')];
    return Number.isNaN(anon) || Number.isNaN(peak) ? null : { anon: Math.round(anon / 1024), peak: Math.round(peak / 1024) };
  } catch {
    return null;
  }
}

export async function timeLoad(
  urls: string[],
  token: string,
  clients: number,
  rounds: number,
): Promise<{ times: number[]; seconds: number }> {
  const work = Array.from({ length: rounds }, () => queries).flat();
  const times = new Array<number>(work.length).fill(0);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let next = 0;
  const connections = await Promise.all(Array.from({ length: clients }, (_, i) => BenchConnection.open(urls[i % urls.length] as string)));
  const t0 = performance.now();
  try {
    await Promise.all(
      connections.map(async (c) => {
        while (next < work.length) {
          const i = next++;
          const { query, language } = work[i] as Query;
          const t0 = performance.now();
          const { status } = await c.post('/v0/search', headers, JSON.stringify({ query, language }));
          times[i] = performance.now() - t0;
          if (status !== 200) throw new Error(`status ${status}`);
        }
      }),
    );
  } finally {
    for (const c of connections) c.close();
  }
  return { times, seconds: (performance.now() - t0) / 1000 };
}

export const timeApi = async (url: string, token: string, clients: number, rounds: number) =>
  (await timeLoad([url], token, clients, rounds)).times;

/** `npm run index` of the corpus (or of `warc`) and a key for the API, run by the version checked out at `root` into `dataDir`. */
export function indexAndKey(root: string, dataDir: string, warc = join(CORPUS, 'docs.warc.gz')) {
  const env = { ...process.env, DATA_DIR: dataDir };
  const t0 = performance.now();
  const idx = spawnSync(node, [join(root, 'server/cli/index.ts'), warc, '--quiet'], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - t0) / 1000;
  if (idx.status !== 0) throw new Error(`index failed: ${idx.stderr}`);
  return { seconds, ...indexSummary(idx.stdout), token: benchKey(root, dataDir) };
}

/**
 * What `npm run index` says of a run in its last lines (its output, whole or the tail of a log).
 * A build finished by `--resume` after a stopped run is a log of the stopped run's reading (its
 * `reading pages:` line) and then the resumed run's output: its time is the sum of the steps' lines,
 * each step as the run that completed it took it, and its memory the resumed run's.
 */
export function indexSummary(output: string): { pages: number; records: number; memory: string; reportedSeconds: number } {
  const resumed = /built (\d+) pages that a stopped run left, in [\d.]+ s/.exec(output);
  const steps = [...output.matchAll(/^[a-z ]+: [^\n]*?([\d.]+) s, [\d.]+ cores(?:, at most \d+ MB so far)?$/gm)].map((m) => Number(m[1]));
  return {
    pages: Number(/now holds (\d+) pages/.exec(output)?.[1]),
    records: Number(resumed?.[1] ?? /indexed (\d+) pages/.exec(output)?.[1]),
    memory: /at most (\d+) MB of memory/.exec(output)?.[1] ?? '?',
    reportedSeconds: resumed ? steps.reduce((a, b) => a + b, 0) : Number(/sources failed, in ([\d.]+) s/.exec(output)?.[1]),
  };
}

/** A key for the API, with a rate no bench reaches, made by the version at `root` in `dataDir`. */
export function benchKey(root: string, dataDir: string): string {
  const keys = spawnSync(node, [join(root, 'server/cli/keys.ts'), 'create', '--name', 'bench', '--rate-per-minute', '1000000'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  if (keys.status !== 0) throw new Error(`keys create failed: ${keys.stderr}`);
  return keys.stdout.trim().split('\n').pop() as string;
}
