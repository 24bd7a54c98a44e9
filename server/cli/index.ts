import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError } from '#shared/config-schema.ts';
import { loadServiceConfig } from '#service/config.ts';
import { ingest } from '#service/search/ingest.ts';
import { CRAWL_DEFAULTS } from '#service/search/sources/crawler.ts';
import { SqliteIndexWriter } from '#service/search/sqlite/writer.ts';
import { SqliteSearchBackend } from '#service/search/sqlite/backend.ts';
import { ProgressBar } from './progress.ts';

const USAGE = `usage: npm run index -- SOURCE... [options]

Adds pages to the search index (DATA_DIR/index.db, or SEARCH_INDEX_PATH). Re-indexing a page replaces it.
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
  --quiet              no progress bar`;

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
  if (!sources.length) fail('name at least one SOURCE');
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
  const writer = new SqliteIndexWriter(config.search.indexPath);
  const bar = new ProgressBar(process.stderr, !v.quiet);
  let skipped = 0;
  const summary = await ingest(
    sources,
    writer,
    { baseUrl: v['base-url'], crawl, threads: Math.min(4, availableParallelism()) },
    {
      skipped(url, reason) {
        skipped++;
        bar.log(`skipped ${url}: ${reason}`);
      },
      sourceFailed(source, reason) {
        bar.log(`failed ${source}: ${reason}`);
      },
      progress(source, fraction, pages) {
        bar.update(fraction, `${pages} pages  ${source.length > 40 ? `…${source.slice(-39)}` : source}`);
      },
    },
  );
  const t1 = performance.now();
  writer.finish((done, total) => bar.update(done / total, `linking and indexing text ${done}/${total}`));
  writer.close();
  bar.done();
  const finishSeconds = (performance.now() - t1) / 1000;
  const backend = new SqliteSearchBackend(config.search.indexPath);
  const total = (await backend.stats()).pages;
  backend.close();
  const pages = summary.added + summary.replaced + summary.merged;
  const seconds = summary.seconds + finishSeconds;
  console.log(
    `indexed ${pages} pages (${summary.added} new, ${summary.replaced} replaced, ${summary.merged} duplicate addresses merged), ` +
      `${skipped} skipped, ${summary.failedSources} of ${sources.length} sources failed, in ${seconds.toFixed(1)} s (${(pages / Math.max(seconds, 1e-3)).toFixed(0)} pages/s)`,
  );
  console.log(`index ${config.search.indexPath} now holds ${total} pages`);
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
