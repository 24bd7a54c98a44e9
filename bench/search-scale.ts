import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { resolveChromium } from '#service/browser/executable.ts';
import { checkFirstStage, type FirstStageCheck } from './_first-stage.ts';
import { corpusStatistics, writeScaleCorpus } from './_scale-corpus.ts';
import {
  benchKey,
  CORPUS,
  indexAndKey,
  indexSummary,
  pct,
  memoryMb,
  queries,
  ROOT,
  startService,
  timeApi,
  type Kind,
  type Query,
} from './_search-load.ts';
import { printTable } from './_stats.ts';

/**
 * `npm run bench -- search-scale` (issue #30): how search's cost grows with the corpus. For each
 * size (BENCH_SCALE_SIZES, pages in all, default 10000,100000; 1000000 takes hours), a corpus of the
 * real pages and synthetic distractors drawn from their statistics (_scale-corpus.ts) is written,
 * indexed with `npm run index` (time, peak memory, index size per page), served without the answer
 * cache and timed at 1 client (one pass) and 16 closed-loop clients (two passes) over the judged
 * queries (a warm-up pass first, after the time the fresh service takes to warm its query threads
 * and then its first known-item query and first natural question are timed; the service's memory
 * after them is kept too),
 * and ranked straight on its index file for MRR@10 of the judged known-item and natural queries
 * and of our own questions (search-quality.ts; decision 0168). The corpus alone (5,058 pages) is
 * the first row, the reference of the ratios.
 * Writes the table and a plot of p50 against size (BENCH_SCALE_OUT, default bench/out/;
 * BENCH_SCALE_REPLOT=1 draws the plot again from the last run's figures). A size whose indexing
 * takes hours is indexed apart (bench/scale-corpus.ts writes its corpus) and measured here with
 * BENCH_SCALE_BUILT (measureEachBuilt), its row added to the last run's. The distractors define
 * names, describe them and carry index anchors as the real pages do (decision 0121);
 * BENCH_SCALE_PLAIN=1 writes them as before, defining nothing, to compare with earlier figures.
 */
const sizes = (process.env.BENCH_SCALE_SIZES ?? '10000,100000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const out = process.env.BENCH_SCALE_OUT ?? join(ROOT, 'bench', 'out');
const plain = process.env.BENCH_SCALE_PLAIN === '1';
const REAL_WARC = join(CORPUS, 'docs.warc.gz');

type Measured = {
  pages: number;
  indexSeconds: number;
  indexMemoryMb: string;
  bytesPerPage: number;
  p50x1: number;
  p99x1: number;
  p50x16: number;
  p99x16: number;
  mrr: Record<string, number>;
  /** The service's memory after the timed passes (memoryMb); absent in older runs' figures. */
  serveMemoryMb?: { anon: number; peak: number } | null;
  /** Pruned first stage against scoring every posting (_first-stage.ts); absent in older runs' figures. */
  firstStage?: FirstStageCheck;
  /** A fresh service's first known-item query and then its first natural question, ms (what it
   * reads of the index once: its pages' lengths, the definitions; decision 0122); since decision
   * 0135 once its query threads are warm (`warmMs`). Absent in older runs' figures. */
  firstMs?: { known: number; natural: number };
  /** From the service listening to its query threads having read what a first search reads
   * (/healthz `search.warming` gone), ms; absent in runs before decision 0135. */
  warmMs?: number;
};

/** Our own judged questions (decisions 0082 and 0083): the handbook's 60 in eight languages (kind
 * `question`) and 32 in plain English about all three manuals (kind `plain`). */
const OWN_QUESTIONS = ['handbook-questions.tsv', 'plain-questions.tsv'].map((f) => join(ROOT, 'bench', 'queries', f));

/** MRR@10 per kind of the judged queries (`queries`: search-quality.ts's own by default), straight
 * on the index file. */
function qualityOf(indexFile: string, queries: readonly string[] = []): Record<string, number> {
  const args = [join(ROOT, 'bench', 'search-quality.ts'), '--index', indexFile, ...queries.flatMap((q) => ['--queries', q])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`search-quality failed: ${r.stderr}`);
  const mrr: Record<string, number> = {};
  for (const m of r.stdout.matchAll(/^(\S+(?: \S+)*?)\s+\d+\s+([\d.]+)\s/gm)) mrr[m[1] as string] = Number(m[2]);
  return mrr;
}

/** MRR@10 per kind of the corpus's judged queries and of our own questions (`question`, `plain`):
 * among distractors ours lose far more than the corpus's do (decision 0168). */
function quality(indexFile: string): Record<string, number> {
  const { question, plain } = qualityOf(indexFile, OWN_QUESTIONS);
  return { ...qualityOf(indexFile), ...(question !== undefined && { question }), ...(plain !== undefined && { plain }) };
}

async function measure(warc: string, dir: string): Promise<Measured> {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const built = indexAndKey(ROOT, dataDir, warc);
  return measureBuilt(dataDir, built);
}

/** The queries' times and ranking on the index `npm run index` built in `dataDir`. */
async function measureBuilt(dataDir: string, built: { seconds: number; pages: number; memory: string; token: string }): Promise<Measured> {
  const indexFile = join(dataDir, 'index.db');
  const service = await startService(ROOT, dataDir, 0);
  try {
    const warmMs = await untilWarm(service.url);
    const firstMs = {
      known: await timeOne(service.url, built.token, 'known-item'),
      natural: await timeOne(service.url, built.token, 'natural'),
    };
    await timeApi(service.url, built.token, 16, 1); // a fresh process's first pass, not counted
    const one = await timeApi(service.url, built.token, 1, 1);
    const many = await timeApi(service.url, built.token, 16, 2);
    const serveMemoryMb = memoryMb(service.child.pid);
    return {
      pages: built.pages,
      indexSeconds: built.seconds,
      indexMemoryMb: built.memory,
      bytesPerPage: statSync(indexFile).size / built.pages,
      p50x1: pct(one, 0.5),
      p99x1: pct(one, 0.99),
      p50x16: pct(many, 0.5),
      p99x16: pct(many, 0.99),
      serveMemoryMb,
      mrr: quality(indexFile),
      firstStage: checkFirstStage(indexFile),
      firstMs,
      warmMs,
    };
  } finally {
    service.child.kill('SIGTERM');
  }
}

/** How long until the service's query threads have read what a first search reads, ms (/healthz,
 * asked every 50 ms, for 10 minutes at most). */
async function untilWarm(url: string): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const health = (await (await fetch(`${url}/healthz`)).json()) as { search?: { warming?: boolean } };
    if (!health.search?.warming) return performance.now() - t0;
    if (performance.now() - t0 > 600_000) throw new Error('the service was still warming its search after 10 minutes');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The time of the first judged query of `kind`, ms: on a fresh service, what it reads once. */
async function timeOne(url: string, token: string, kind: Kind): Promise<number> {
  const { query, language } = queries.find((q) => q.kind === kind) as Query;
  const t0 = performance.now();
  const r = await fetch(`${url}/v0/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, language }),
  });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`the first ${kind} query answered ${r.status}`);
  return performance.now() - t0;
}

/**
 * BENCH_SCALE_BUILT: the rows of indexes built apart, each a DATA_DIR into which `npm run index`
 * of a scale corpus wrote (10⁶ pages take hours: run it on its own, then measure it here), with
 * that run's output in DATA_DIR/index.log, from which the index's pages, time and memory are read.
 */
async function measureEachBuilt(dirs: readonly string[]): Promise<Measured[]> {
  const rows: Measured[] = [];
  for (const dataDir of dirs) {
    const log = join(dataDir, 'index.log');
    if (!existsSync(join(dataDir, 'index.db')) || !existsSync(log))
      throw new Error(`${dataDir}: no index.db with the output of its npm run index in index.log beside it`);
    const summary = indexSummary(readFileSync(log, 'utf8'));
    if (!summary.pages || !summary.reportedSeconds) throw new Error(`${log}: no summary of a finished npm run index in it`);
    rows.push(await measureBuilt(dataDir, { ...summary, seconds: summary.reportedSeconds, token: benchKey(ROOT, dataDir) }));
  }
  return rows;
}

/** A log-log plot of p50 at 1 and 16 clients against pages, drawn by Chromium as a PNG. */
async function plot(rows: Measured[], file: string): Promise<void> {
  const W = 720;
  const H = 480;
  const pad = 60;
  // The legend sits between the title and the plot.
  const top = 110;
  const xs = rows.map((r) => Math.log10(r.pages));
  const ys = rows.flatMap((r) => [
    Math.log10(r.p50x1),
    Math.log10(r.p50x16),
    Math.log10((rows[0] as Measured).p50x1 * (r.pages / (rows[0] as Measured).pages)),
  ]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs) + 1e-9];
  const [y0, y1] = [Math.min(...ys) - 0.1, Math.max(...ys) + 0.1];
  const X = (v: number) => pad + ((Math.log10(v) - x0) / (x1 - x0)) * (W - 2 * pad);
  const Y = (v: number) => H - pad - ((Math.log10(v) - y0) / (y1 - y0)) * (H - pad - top);
  const line = (pick: (r: Measured) => number, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" points="${rows.map((r) => `${X(r.pages)},${Y(pick(r))}`).join(' ')}"/>` +
    rows.map((r) => `<circle cx="${X(r.pages)}" cy="${Y(pick(r))}" r="4" fill="${color}"/>`).join('');
  // Where 1 client would be if a query cost grew as the corpus does.
  const first = rows[0] as Measured;
  const last = rows[rows.length - 1] as Measured;
  const linear = `<line x1="${X(first.pages)}" y1="${Y(first.p50x1)}" x2="${X(last.pages)}" y2="${Y((first.p50x1 * last.pages) / first.pages)}" stroke="#888" stroke-dasharray="6 4"/>`;
  const labels = rows
    .map((r) => `<text x="${X(r.pages)}" y="${H - pad + 20}" text-anchor="middle">${r.pages.toLocaleString('en')}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="13">
    <rect width="100%" height="100%" fill="white"/>
    <text x="${W / 2}" y="24" text-anchor="middle" font-size="16">Search p50 without the answer cache against corpus size (log-log)</text>
    <line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#444"/><line x1="${pad}" y1="${top - 10}" x2="${pad}" y2="${H - pad}" stroke="#444"/>
    ${labels}<text x="${W / 2}" y="${H - 12}" text-anchor="middle">pages</text>
    <text x="16" y="${H / 2}" transform="rotate(-90 16 ${H / 2})" text-anchor="middle">p50 ms</text>
    ${rows.map((r) => `<text x="${X(r.pages) + 6}" y="${Y(r.p50x1) - 6}" fill="#1f6feb">${r.p50x1.toFixed(2)}</text><text x="${X(r.pages) + 6}" y="${Y(r.p50x16) - 6}" fill="#d1242f">${r.p50x16.toFixed(1)}</text>`).join('')}
    ${line((r) => r.p50x1, '#1f6feb')}${line((r) => r.p50x16, '#d1242f')}
    ${linear}
    <text x="${pad}" y="50" fill="#1f6feb">— 1 client</text><text x="${pad}" y="68" fill="#d1242f">— 16 clients</text>
    <text x="${pad}" y="86" fill="#888">- - linear growth from the corpus alone (1 client)</text>
  </svg>`;
  const executable = await resolveChromium(process.env.CHROME_PATH);
  const browser = await chromium.launch({ executablePath: executable.path, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  try {
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    await page.setContent(svg);
    await page.screenshot({ path: file });
  } finally {
    await browser.close();
  }
}

// BENCH_SCALE_REPLOT=1: draw the plot again from the last run's figures, measuring nothing.
if (process.env.BENCH_SCALE_REPLOT) {
  await plot(JSON.parse(readFileSync(join(out, 'search-scale.json'), 'utf8')) as Measured[], join(out, 'search-scale.png'));
  process.exit(0);
}
const began = performance.now();
const loadAtStart = loadavg()[0]?.toFixed(2);
mkdirSync(out, { recursive: true });
const figures = join(out, 'search-scale.json');
const built = (process.env.BENCH_SCALE_BUILT ?? '').split(',').filter(Boolean);
let rows: Measured[] = [];
if (built.length) {
  // Indexes built apart join the last run's rows (the corpus alone first, the reference), each
  // replacing a row of its size.
  if (!existsSync(figures)) throw new Error(`BENCH_SCALE_BUILT adds rows to the last run's figures (${figures}): run the bench once first`);
  const added = await measureEachBuilt(built);
  const kept = (JSON.parse(readFileSync(figures, 'utf8')) as Measured[]).filter((r) => !added.some((a) => a.pages === r.pages));
  rows = [...kept, ...added].sort((a, b) => a.pages - b.pages);
} else {
  const stats = await corpusStatistics(REAL_WARC);
  const scratch = mkdtempSync(join(tmpdir(), 'periscope-bench-scale-'));
  try {
    // The corpus alone, then each size.
    const base = join(scratch, 'base');
    mkdirSync(base);
    rows.push(await measure(REAL_WARC, base));
    rmSync(base, { recursive: true, force: true });
    for (const size of sizes) {
      const dir = join(scratch, String(size));
      mkdirSync(dir);
      const warc = join(dir, 'corpus.warc.gz');
      const t0 = performance.now();
      const synthetic = await writeScaleCorpus(REAL_WARC, warc, size, (rows[0] as Measured).pages, stats, { definitions: !plain });
      console.error(
        `${size} pages: ${synthetic} synthetic written in ${((performance.now() - t0) / 1000).toFixed(1)} s (${(statSync(warc).size / 1e6).toFixed(0)} MB)`,
      );
      rows.push(await measure(warc, dir));
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const ref = rows[0] as Measured;
const table = rows.map((r) => ({
  pages: r.pages,
  'index s': r.indexSeconds.toFixed(0),
  'index MB': r.indexMemoryMb,
  'KB/page': (r.bytesPerPage / 1024).toFixed(1),
  'p50 1c': r.p50x1.toFixed(2),
  'p99 1c': r.p99x1.toFixed(2),
  'p50 16c': r.p50x16.toFixed(2),
  'p99 16c': r.p99x16.toFixed(2),
  'warm-up ms': r.warmMs?.toFixed(0) ?? '',
  'first ms known/natural': r.firstMs ? `${r.firstMs.known.toFixed(0)}/${r.firstMs.natural.toFixed(0)}` : '',
  'serve MB own/peak': r.serveMemoryMb ? `${r.serveMemoryMb.anon}/${r.serveMemoryMb.peak}` : '',
  'p50 1c ×': (r.p50x1 / ref.p50x1).toFixed(2),
  'p50 16c ×': (r.p50x16 / ref.p50x16).toFixed(2),
  'MRR known': (r.mrr['all but natural'] ?? 0).toFixed(3),
  'MRR natural': (r.mrr.natural ?? 0).toFixed(3),
  // Absent in runs before decision 0168.
  'MRR ours handbook/plain': r.mrr.question === undefined ? '' : `${r.mrr.question.toFixed(3)}/${(r.mrr.plain ?? 0).toFixed(3)}`,
  'stage ms all': r.firstStage?.msEvery.toFixed(3) ?? '',
  'stage ms pruned': r.firstStage?.msPruned.toFixed(3) ?? '',
  '% scored': r.firstStage ? (100 * r.firstStage.scoredShare).toFixed(1) : '',
  'pruned = all': r.firstStage ? `${r.firstStage.differ} of ${r.firstStage.queries} q differ` : '',
}));
printTable('search at growing corpus sizes (answer cache off; ms; × against the corpus alone)', table);
const png = join(out, 'search-scale.png');
await plot(rows, png);
writeFileSync(figures, `${JSON.stringify(rows, null, 2)}\n`);
console.log(
  `plot: ${png}\nMRR@10 by kind of each size: ${rows.map((r) => `${r.pages}: ${JSON.stringify(r.mrr)}`).join('; ')}\n` +
    `(load average ${loadAtStart} at start, ${loadavg()[0]?.toFixed(2)} at end; ${((performance.now() - began) / 60000).toFixed(1)} min)`,
);
// The pruned first stage must rank as scoring every posting does, at every size (issue 30).
const inexact = rows.filter((r) => r.firstStage?.differ);
if (inexact.length) {
  console.error(`MaxScore differs from scoring every posting at ${inexact.map((r) => r.pages).join(', ')} pages`);
  process.exit(1);
}
process.exit(0);
