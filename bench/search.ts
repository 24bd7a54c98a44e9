import { spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseQuery } from '#service/search/tokenize.ts';
import { matchAny } from '#service/search/sqlite/match.ts';
import { FIELD_WEIGHTS } from '#service/search/sqlite/backend.ts';
import { PostingsStage } from '#service/search/sqlite/postings.ts';
import { IndexReader } from '#service/search/sqlite/query.ts';
import { fillFullText } from '#service/search/sqlite/writer.ts';
import { checkoutBaseline, type Baseline } from './_baseline.ts';
import { count, indexAndKey, KINDS, ofKind, pct, queries, ROOT, startService, timeApi, timeLoad } from './_search-load.ts';

/**
 * `npm run bench -- search`: index the corpus with `npm run index` (pages/s), then time the
 * corpus's queries through POST /v0/search at 1 and 16 concurrent clients, with the answer cache
 * off (every query does the full work on the service's query workers; a fresh process's first
 * pass apart from the steady state) and on (repeated queries). Beside them, the same queries run
 * straight in this process: on FTS5 (BM25 only, the reference the ratios are to; a copy of the index
 * with FTS5 rows, which it keeps none of), on our
 * own first stage (postings, decision 0018), and through the whole query path. The clients are closed-loop (each sends its next query when the last
 * answer is in), each on one kept-alive connection of a minimal HTTP client (_http.ts): client and
 * service share the machine's cores, so a heavy client would be measured as service latency.
 * Then the throughput of one and of two query nodes (service processes over one folder of index
 * generations, decision 0094) under the same 16 clients, beside the straight path's.
 * The queries are both kinds the corpus has, interleaved: its dev queries (known-item and language
 * pairs) and its natural questions; each row gives both together and each kind apart.
 * Today's code beside the new (issue 24): a git worktree of the baseline commit (_baseline.ts;
 * `BENCH_BASELINE=<ref>` for another, `=none` for none) indexes the same corpus with its own CLI into
 * its own folder, and its own service is timed beside this tree's, with the same env and load (the
 * same first and warm-up passes, then 1 and 16 clients without the answer cache); the last lines
 * give the ratios this tree / baseline.
 * Targets: corpus indexed in under 60 s and 1 GB of memory; p50 < 5 ms and p99 < 25 ms at 16 clients;
 * at 16 clients without the answer cache, p50 and p99 at most 1.3× the baseline's (issue 24).
 */
/** Passes over the queries for each throughput row: long enough for a steady rate. */
const THROUGHPUT_ROUNDS = 4;
/** Issue 24: at 16 clients without the answer cache, p50 and p99 at most this many times the baseline's. */
const BASELINE_TARGET = 1.3;

const node = process.execPath;

/** Our first stage and the whole query path, straight in this process (warmed by one round). */
function timeStraight(file: string): { postings: number[]; reader: number[] } {
  const db = new DatabaseSync(file, { readOnly: true });
  const stage = new PostingsStage(db);
  if (!stage.refresh()) throw new Error('the index has no postings');
  const reader = new IndexReader(file);
  const out = { postings: [] as number[], reader: [] as number[] };
  for (const round of [0, 1]) {
    for (const q of queries) {
      const p = parseQuery(q.query);
      const concepts = p.concepts.filter((c) => !c.stop);
      const t0 = performance.now();
      // A query begins as a reader begins one: what the last one read is no longer held for it.
      stage.trim();
      stage.rank(concepts.length ? concepts : p.concepts, p.joins, 60);
      const t1 = performance.now();
      reader.search({ query: q.query, language: q.language, limit: 10 });
      const t2 = performance.now();
      if (round) {
        out.postings.push(t1 - t0);
        out.reader.push(t2 - t1);
      }
    }
  }
  stage.close();
  reader.close();
  db.close();
  return out;
}

/** A copy of the index with FTS5 rows (the writer keeps none, decision 0085). */
function fullTextCopy(file: string, out: string): string {
  copyFileSync(file, out);
  fillFullText(out);
  return out;
}

/** FTS5's bm25() over the same concepts, straight in this process (warmed by one round). */
function timeFts(file: string): number[] {
  const db = new DatabaseSync(file, { readOnly: true });
  const w = FIELD_WEIGHTS;
  const weights = [w.title, w.headings, w.url, w.terms, w.anchors, w.body].join(', ');
  const st = db.prepare(`SELECT rowid, bm25(fts, ${weights}) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT 10`);
  const times: number[] = [];
  for (const round of [0, 1]) {
    for (const q of queries) {
      const p = parseQuery(q.query);
      const concepts = p.concepts.filter((c) => !c.stop);
      const t0 = performance.now();
      st.all(matchAny(concepts.length ? concepts : p.concepts, p.joins));
      if (round) times.push(performance.now() - t0);
    }
  }
  db.close();
  return times;
}

const dataDir = mkdtempSync(join(tmpdir(), 'periscope-bench-'));
const services: ChildProcess[] = [];
let worktree: Baseline | undefined;
try {
  const built = indexAndKey(ROOT, dataDir);
  const { token } = built;

  // Today's code (issue 24), prepared before anything is timed: its worktree, its own index of the
  // same corpus and its own key. Without one (BENCH_BASELINE=none, not a git checkout, a failed
  // build) the bench says why and times this tree alone.
  const checkout = checkoutBaseline(ROOT);
  let skipped = 'skipped' in checkout ? checkout.skipped : '';
  let baseline: { commit: string; root: string; dataDir: string; built: ReturnType<typeof indexAndKey> } | undefined;
  if (!('skipped' in checkout)) {
    worktree = checkout;
    const baselineData = join(checkout.scratch, 'data');
    mkdirSync(baselineData);
    try {
      baseline = { commit: checkout.commit, root: checkout.root, dataDir: baselineData, built: indexAndKey(checkout.root, baselineData) };
    } catch (err) {
      skipped = `${checkout.commit} could not be prepared: ${(err as Error).message.trim()}`;
    }
  }
  if (!baseline) console.log(`baseline skipped: ${skipped}; timing this tree alone`);

  const rows: [string, number[]][] = [];
  const fts = timeFts(fullTextCopy(join(dataDir, 'index.db'), join(dataDir, 'full-text.db')));
  const straight = timeStraight(join(dataDir, 'index.db'));
  // This tree's service and the baseline's, both without the answer cache, both up at once and
  // timed back to back pass by pass (same env, same clients), so the machine's other load falls on
  // both alike; each version's row follows this tree's.
  const versions = [{ label: 'API', root: ROOT, dataDir, token }];
  if (baseline)
    versions.push({ label: `API @${baseline.commit}`, root: baseline.root, dataDir: baseline.dataDir, token: baseline.built.token });
  const uncached: ((typeof versions)[number] & { url: string; child: ChildProcess })[] = [];
  for (const v of versions) {
    const s = await startService(v.root, v.dataDir, 0);
    services.push(s.child);
    uncached.push({ ...v, ...s });
  }
  // The first pass meets a fresh process: code not yet compiled, each query worker reading the
  // terms and pages it has not seen from the index file. A second pass warms every worker; the
  // figures after it are the steady state of a running service.
  for (const v of uncached) rows.push([`${v.label}, 16 clients, no cache, first pass`, await timeApi(v.url, v.token, 16, 1)]);
  for (const v of uncached) await timeApi(v.url, v.token, 16, 1);
  /** The steady rows per client count, one timing per version (this tree's first). */
  const steady: { clients: number; times: number[][] }[] = [];
  for (const [clients, rounds] of [
    [1, 1],
    [16, 2],
  ] as const) {
    const times: number[][] = [];
    for (const v of uncached) {
      times.push(await timeApi(v.url, v.token, clients, rounds));
      rows.push([`${v.label}, ${clients === 1 ? '1 client' : `${clients} clients`}, no answer cache`, times.at(-1) as number[]]);
    }
    steady.push({ clients, times });
  }
  for (const v of uncached) v.child.kill('SIGTERM');
  // Room for every query's answer: a cache smaller than one pass would lose each answer before
  // its query came round again (least recently used first), and time the uncached path.
  const warm = await startService(ROOT, dataDir, 2 * queries.length);
  services.push(warm.child);
  await timeApi(warm.url, token, 4, 1); // fills the answer cache
  rows.push(['API, 1 client, answers cached', await timeApi(warm.url, token, 1, 1)]);
  rows.push(['API, 16 clients, answers cached', await timeApi(warm.url, token, 16, 2)]);
  rows.push(['FTS5 bm25() straight, 1 client', fts]);
  rows.push(['our postings straight, 1 client', straight.postings]);
  rows.push(['whole query straight, 1 client', straight.reader]);

  // Query nodes (decision 0094): the index published once as a generation, read by one service
  // process and then by two, each with its default query workers, under the same closed-loop load.
  const generations = join(dataDir, 'generations');
  const p0 = performance.now();
  const published = spawnSync(node, [join(ROOT, 'server/cli/index.ts'), '--from', join(dataDir, 'index.db'), '--quiet'], {
    env: { ...process.env, DATA_DIR: dataDir, SEARCH_INDEX_DIR: generations },
    encoding: 'utf8',
  });
  const publishSeconds = (performance.now() - p0) / 1000;
  if (published.status !== 0) throw new Error(`publishing a generation failed: ${published.stderr}`);
  const throughput: { label: string; nodes: number; run: { times: number[]; seconds: number } }[] = [];
  const node1 = await startService(ROOT, dataDir, 0, { SEARCH_INDEX_DIR: generations });
  services.push(node1.child);
  await timeLoad([node1.url], token, 16, 1); // warms the node's worker
  throughput.push({ label: 'one query node', nodes: 1, run: await timeLoad([node1.url], token, 16, THROUGHPUT_ROUNDS) });
  node1.child.kill('SIGTERM');
  const pair = await Promise.all([0, 1].map(() => startService(ROOT, dataDir, 0, { SEARCH_INDEX_DIR: generations })));
  services.push(...pair.map((n) => n.child));
  const urls = pair.map((n) => n.url);
  await timeLoad(urls, token, 16, 1);
  throughput.push({ label: 'two query nodes', nodes: 2, run: await timeLoad(urls, token, 16, THROUGHPUT_ROUNDS) });
  for (const n of pair) n.child.kill('SIGTERM');
  const direct = straight.reader.reduce((a, b) => a + b, 0) / 1000;

  const ftsP50 = pct(fts, 0.5);
  const ftsP99 = pct(fts, 0.99);
  const corpusLine = (b: ReturnType<typeof indexAndKey>) =>
    `${b.records} records -> ${b.pages} pages indexed in ${b.seconds.toFixed(1)} s = ${(b.records / b.seconds).toFixed(0)} records/s, ` +
    `${(b.pages / b.seconds).toFixed(0)} pages/s (target < 60 s), at most ${b.memory} MB of memory (target < 1 GB)`;
  console.log(`\ncorpus: ${corpusLine(built)}`);
  if (baseline)
    console.log(
      `baseline ${baseline.commit} (BENCH_BASELINE; by default the commit before issue 24's ranking work), from a temporary git worktree, ` +
        `its own index of the same corpus: ${corpusLine(baseline.built)}; its rows are "API @${baseline.commit}"`,
    );
  else console.log(`baseline: skipped, ${skipped}`);
  console.log(
    `queries: ${queries.length}, the corpus's ${count('known-item')} dev queries (known-item and language pairs; "known" below) ` +
      `and its ${count('natural')} natural questions ("nat." below), interleaved; 10 results each\n`,
  );
  const LABEL = 46;
  console.log(
    `${'what'.padEnd(LABEL)} ${'n'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'p50/FTS'.padStart(8)} ${'p99/FTS'.padStart(8)}` +
      ` ${'known p50'.padStart(10)} ${'known p99'.padStart(10)} ${'nat. p50'.padStart(10)} ${'nat. p99'.padStart(10)}`,
  );
  for (const [label, t] of rows) {
    const p50 = pct(t, 0.5);
    const p99 = pct(t, 0.99);
    const byKind = KINDS.flatMap((k) => [pct(ofKind(t, k), 0.5), pct(ofKind(t, k), 0.99)]);
    console.log(
      `${label.padEnd(LABEL)} ${String(t.length).padStart(5)} ${p50.toFixed(2).padStart(8)} ${p99.toFixed(2).padStart(8)} ${(p50 / ftsP50).toFixed(1).padStart(8)} ${(p99 / ftsP99).toFixed(1).padStart(8)}` +
        byKind.map((v) => ` ${v.toFixed(2).padStart(10)}`).join(''),
    );
  }
  console.log(
    `\nquery workers: ${process.env.SEARCH_WORKERS ?? 'default'}; cores: ${availableParallelism()}; load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('targets at 16 clients: p50 < 5 ms, p99 < 25 ms');

  console.log(
    `\nthroughput over one folder of index generations (SEARCH_INDEX_DIR; publishing this index as a generation took ${publishSeconds.toFixed(1)} s), ` +
      `16 closed-loop clients, no answer cache, ${THROUGHPUT_ROUNDS} passes over the queries, clients spread round-robin over the nodes:`,
  );
  console.log(`${'what'.padEnd(36)} ${'n'.padStart(5)} ${'q/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
  const line = (label: string, n: number, qps: number, p50: number, p99: number) =>
    console.log(
      `${label.padEnd(36)} ${String(n).padStart(5)} ${qps.toFixed(0).padStart(8)} ${p50.toFixed(2).padStart(8)} ${p99.toFixed(2).padStart(8)}`,
    );
  line(
    'whole query straight, one thread',
    straight.reader.length,
    straight.reader.length / direct,
    pct(straight.reader, 0.5),
    pct(straight.reader, 0.99),
  );
  for (const { label, nodes, run } of throughput)
    line(
      `API, ${label} (${nodes} process${nodes > 1 ? 'es' : ''})`,
      run.times.length,
      run.times.length / run.seconds,
      pct(run.times, 0.5),
      pct(run.times, 0.99),
    );
  console.log(
    `each node: ${process.env.SEARCH_WORKERS ?? 'the default'} query workers; the clients, every node's event loop and its workers share the ${availableParallelism()} cores`,
  );

  // Issue 24's target: this tree against the baseline, both timed above in this run.
  if (baseline) {
    console.log(
      `\nthis tree / ${baseline.commit}, no answer cache (issue 24: at 16 clients, p50 and p99 at most ${BASELINE_TARGET}× the baseline's):`,
    );
    const ratios = (now: number[], before: number[]) => [0.5, 0.99].map((p) => pct(now, p) / pct(before, p)) as [number, number];
    for (const { clients, times } of steady) {
      const [now, before] = times as [number[], number[]];
      const [r50, r99] = ratios(now, before);
      const met = r50 <= BASELINE_TARGET && r99 <= BASELINE_TARGET;
      const byKind = KINDS.map((k) => {
        const [k50, k99] = ratios(ofKind(now, k), ofKind(before, k));
        return `${k === 'natural' ? 'nat.' : 'known'} ${k50.toFixed(2)}× / ${k99.toFixed(2)}×`;
      }).join(', ');
      console.log(
        `${(clients === 1 ? '1 client' : `${clients} clients`).padEnd(10)} p50 ${r50.toFixed(2)}×, p99 ${r99.toFixed(2)}× over all the queries: ` +
          `${met ? 'within' : 'NOT within'} ${BASELINE_TARGET}× (p50 / p99 by kind: ${byKind})`,
      );
    }
  } else
    console.log(`\nissue 24's target (at most ${BASELINE_TARGET}× the baseline's p50 and p99) not checked: baseline skipped, ${skipped}`);
} finally {
  for (const s of services) if (s.exitCode === null) s.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
  worktree?.remove();
}
