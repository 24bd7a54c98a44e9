import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '#shared/config-schema.ts';
import { loadServiceConfig } from '#service/config.ts';
import type { FinishStep } from '#service/search/backend.ts';
import { announceGeneration } from '#service/search/generation-news.ts';
import { ingest } from '#service/search/ingest.ts';
import { PhaseBar } from '#service/search/phase-bar.ts';
import { CRAWL_DEFAULTS } from '#service/search/sources/crawler.ts';
import { SqliteIndexWriter } from '#service/search/sqlite/writer.ts';
import { indexedPages } from '#service/search/sqlite/backend.ts';
import { currentGeneration, GenerationBuilder } from '#service/search/sqlite/generations.ts';

/** Threads that parse pages, and then threads that build their terms in the writer's finish()
 * (decision 0086): one a core, at most two, as each parsing thread costs about 250 MB. On two cores
 * two of each indexed 10,000 pages in 59 s, one of each in 78 s, and three of either took longer:
 * the main thread, which reads and stores, needs a core's share too. */
const MAX_DEFAULT_THREADS = 2;
const DEFAULT_THREADS = Math.max(1, Math.min(MAX_DEFAULT_THREADS, availableParallelism()));

const USAGE = `usage: npm run index -- SOURCE... [options]
       npm run index -- --resume [--threads N] [--quiet]

Adds pages to the search index (DATA_DIR/index.db, or SEARCH_INDEX_PATH). Re-indexing a page replaces it.
With SEARCH_INDEX_DIR set, builds a new generation of the index there from the current one and
publishes it: every service node switches to it (at once through Redis when REDIS_URL is set).
SOURCE is any of:
  FILE.warc | FILE.warc.gz      the HTML responses of a web archive (WARC 1.0/1.1)
  FOLDER --base-url URL         the .html files under FOLDER, served at URL + their path
  http(s)://ADDRESS             a polite crawl from ADDRESS (robots.txt obeyed, same site only)

crawl options:
  --max-pages N        stop after N pages (default ${CRAWL_DEFAULTS.maxPages})
  --max-depth N        follow links at most N steps from the start (default ${CRAWL_DEFAULTS.maxDepth})
  --concurrency N      requests in flight at most (default ${CRAWL_DEFAULTS.concurrency}; one at a time per host)
  --delay-ms N         least time between two requests to one host (default ${CRAWL_DEFAULTS.delayMs})
  --timeout-ms N       per request (default ${CRAWL_DEFAULTS.timeoutMs})
  --all-sites          follow links to other sites too
  --user-agent TEXT    (default "${CRAWL_DEFAULTS.userAgent}")

other options:
  --resume             read no SOURCE: build the pages that a run stopped part-way (killed, out of
                       disk) had read into DATA_DIR's index and left unbuilt; the pages it had not
                       read yet come with the next run of its sources (which builds the rest too)
  --from FILE          with SEARCH_INDEX_DIR: start the new generation from the index FILE (for
                       instance an existing DATA_DIR/index.db) instead of the current generation;
                       no SOURCE is then needed
  --threads N          threads parsing pages, ~250 MB each, then building their terms beside the
                       main thread, then sorting the words (default ${DEFAULT_THREADS}: one a core, at most ${MAX_DEFAULT_THREADS})
  --quiet              no progress bar`;

/** The phases of a run, reading (parsing and storing) pages and then the writer's finish() steps,
 * each weighted by the seconds it takes for the corpus of the README (on two cores at the default
 * threads: 21.0, 13.3, 2.9, 1.4, 0.1 and 0.1 s). Upgrading the index, which only an index an older
 * version wrote does, once, takes 0.3 s for that corpus (76 s at 10⁶ pages, decision 0155). */
const READING = { name: 'reading pages', weight: 21 };
const FINISHING: Record<FinishStep, { name: string; weight: number; unit: string }> = {
  upgrade: { name: 'upgrading the index', weight: 0.3, unit: '' },
  text: { name: 'indexing text', weight: 13.3, unit: 'pages' },
  terms: { name: 'writing postings', weight: 2.9, unit: 'term lists' },
  words: { name: 'ordering words', weight: 1.4, unit: '' },
  rank: { name: 'ranking pages', weight: 0.1, unit: '' },
  optimise: { name: 'optimising', weight: 0.1, unit: '' },
};

/** A source as the bar names it: a file by its name, an address as it is. */
const sourceName = (source: string) => (/^https?:\/\//i.test(source) ? source : basename(source));

function fail(message: string): never {
  console.error(`index: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function num(text: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) fail(`${flag} takes a whole number from ${min} to ${max}`);
  return Number(text);
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'max-pages': { type: 'string' },
        'max-depth': { type: 'string' },
        concurrency: { type: 'string' },
        'delay-ms': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'all-sites': { type: 'boolean' },
        'user-agent': { type: 'string' },
        threads: { type: 'string' },
        from: { type: 'string' },
        resume: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  const { values: v, positionals: sources } = parsed;
  if (v.help) {
    console.log(USAGE);
    return 0;
  }
  if (v.resume && sources.length)
    fail('--resume reads no SOURCE: it builds what a stopped run left (index the sources in a run of their own)');
  if (!sources.length && v.from === undefined && !v.resume) fail('name at least one SOURCE');
  if (v['base-url'] !== undefined && !/^https?:\/\/[^/]/i.test(v['base-url'])) fail('--base-url must be an absolute http(s) address');
  const crawl = Object.fromEntries(
    Object.entries({
      maxPages: num(v['max-pages'], '--max-pages', 1, 10_000_000),
      maxDepth: num(v['max-depth'], '--max-depth', 0, 1000),
      concurrency: num(v.concurrency, '--concurrency', 1, 64),
      delayMs: num(v['delay-ms'], '--delay-ms', 0, 60_000),
      timeoutMs: num(v['timeout-ms'], '--timeout-ms', 100, 600_000),
      allSites: v['all-sites'],
      userAgent: v['user-agent'],
    }).filter(([, x]) => x !== undefined),
  );
  const config = loadServiceConfig();
  const generations = config.search.generations;
  if (v.from !== undefined && !generations) fail('--from needs SEARCH_INDEX_DIR (it starts a new index generation from FILE)');
  if (v.from !== undefined && !existsSync(v.from)) fail(`--from: no such file (${resolve(v.from)})`);
  if (v.resume && generations)
    fail(
      '--resume is for the index of DATA_DIR (or SEARCH_INDEX_PATH): with SEARCH_INDEX_DIR, what a stopped run left is removed by the next run, which starts again from the current generation',
    );
  if (v.resume && !existsSync(config.search.indexPath))
    fail(`--resume: there is no index to resume at ${resolve(config.search.indexPath)}`);
  let builder: GenerationBuilder | null = null;
  if (generations) {
    try {
      builder = GenerationBuilder.begin(generations.dir, { from: v.from });
    } catch (err) {
      console.error(`index: ${(err as Error).message}`);
      return 1;
    }
  }
  try {
    return await run(config, sources, v, crawl, builder);
  } catch (err) {
    builder?.abandon();
    throw err;
  }
}

async function run(
  config: ReturnType<typeof loadServiceConfig>,
  sources: string[],
  v: { 'base-url'?: string; threads?: string; quiet?: boolean; from?: string; resume?: boolean },
  crawl: Record<string, unknown>,
  builder: GenerationBuilder | null,
): Promise<number> {
  const threads = num(v.threads, '--threads', 1, 64) ?? DEFAULT_THREADS;
  const writer = new SqliteIndexWriter(builder?.file ?? config.search.indexPath, { threads });
  // Upgrading is a phase of the runs that have it to do only.
  const finishing = (Object.keys(FINISHING) as FinishStep[])
    .filter((step) => step !== 'upgrade' || writer.upgrading())
    .map((step) => FINISHING[step]);
  const bar = new PhaseBar(process.stderr, v.resume ? finishing : [READING, ...finishing], { quiet: v.quiet });
  // Pages a stopped run read and did not build: finish() builds them with this run's.
  const left = writer.unfinished();
  if (left && !v.resume) bar.log(`${left} pages that a stopped run left unbuilt are built with this run's`);
  let skipped = 0;
  // A run that resumes reads nothing (and starts no parsing threads).
  const nothingRead = { added: 0, replaced: 0, merged: 0, skipped: 0, failedSources: 0, seconds: 0 };
  const summary = v.resume
    ? nothingRead
    : await ingest(
        sources,
        writer,
        { baseUrl: v['base-url'], crawl, threads },
        {
          skipped(url, reason) {
            skipped++;
            bar.log(`skipped ${url}: ${reason}`);
          },
          sourceFailed(source, reason) {
            bar.log(`failed ${source}: ${reason}`);
          },
          progress(source, fraction, pages) {
            // One bar for all sources, each an equal part of reading.
            const at = sources.indexOf(source);
            bar.update(READING.name, (at + (fraction ?? 0)) / sources.length, `${pages} pages  ${sourceName(source)}`);
          },
        },
      );
  const pages = summary.added + summary.replaced + summary.merged;
  if (!v.resume) bar.update(READING.name, 1, `${pages} pages`);
  const t1 = performance.now();
  let built = 0;
  writer.finish((step, done, total) => {
    if (step === 'text') built = total;
    const { name, unit } = FINISHING[step];
    bar.update(name, done / total, unit ? `${done}/${total} ${unit}` : '');
  });
  writer.close();
  bar.done();
  let published = '';
  let indexFile: string | null = config.search.indexPath;
  if (builder && pages === 0 && v.from === undefined) {
    // Nothing read (every source failed, or none had pages): the current generation stays.
    builder.abandon();
    const current = currentGeneration(builder.dir);
    indexFile = current?.file ?? null;
    published = `nothing new to publish in ${builder.dir}: ${current ? `${current.name} stays current` : 'no generation yet'}`;
  } else if (builder) {
    const { generation, removed } = builder.publish();
    indexFile = generation.file;
    published = `published generation ${generation.name} in ${builder.dir}${removed.length ? ` (removed ${removed.join(', ')})` : ''}`;
    if (config.cluster) {
      const heard = await announceGeneration(config.cluster.redisUrl, generation.name).catch((err: Error) => err);
      published +=
        typeof heard === 'number'
          ? `; ${heard} node${heard === 1 ? '' : 's'} told through Redis`
          : `; Redis could not be told (${heard.message}): nodes find it within SEARCH_INDEX_CHECK_SECONDS`;
    }
  }
  const finishSeconds = (performance.now() - t1) / 1000;
  const total = indexFile ? indexedPages(indexFile, { immutable: builder !== null }) : 0;
  const seconds = summary.seconds + finishSeconds;
  const memory = `at most ${Math.round(process.resourceUsage().maxRSS / 1024)} MB of memory`;
  if (v.resume)
    console.log(
      built
        ? `built ${built} pages that a stopped run left, in ${seconds.toFixed(1)} s (${(built / Math.max(seconds, 1e-3)).toFixed(0)} pages/s, ${memory})`
        : 'nothing to resume: every page in the index is built',
    );
  else
    console.log(
      `indexed ${pages} pages (${summary.added} new, ${summary.replaced} replaced, ${summary.merged} duplicate addresses merged), ` +
        `${skipped} skipped, ${summary.failedSources} of ${sources.length} sources failed, in ${seconds.toFixed(1)} s ` +
        `(${(pages / Math.max(seconds, 1e-3)).toFixed(0)} pages/s, ${memory})`,
    );
  if (published) console.log(published);
  if (indexFile) console.log(`index ${indexFile} now holds ${total} pages`);
  return summary.failedSources ? 1 : 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
