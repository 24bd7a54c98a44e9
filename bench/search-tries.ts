import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteSearchBackend } from '#service/search/sqlite/backend.ts';
import type { SearchRequest } from '#service/search/backend.ts';
import { triesFor, withTries } from '#service/search/tries.ts';
import { runIndex, sliceCorpus } from '../tests/helpers/search.ts';
import { ms, percentile, printTable } from './_stats.ts';

/**
 * `npm run bench -- search-tries`: what the searches to try cost an empty search (decision 0114).
 * The Python documentation's asyncio, json and glossary pages are indexed; each of the corpus's dev
 * queries gets two made-up words, so that it finds nothing, and is searched in German (so that the
 * English try is made too) with the answer cache off, once alone and once with its tries checked.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'periscope-bench-tries-'));
const slice = join(dir, 'slice.warc.gz');
await sliceCorpus(slice, (uri) => /^https:\/\/docs\.python\.org\/3[^/]*\/(library\/(asyncio|json)[\w-]*\.html|glossary\.html)$/i.test(uri));
const r = runIndex(dir, [slice, '--quiet']);
if (r.status !== 0) throw new Error(r.stderr);
const backend = new SqliteSearchBackend(join(dir, 'index.db'), { cacheSize: 0 });
const queries = readFileSync(join(ROOT, '..', 'shared', 'corpus', 'queries-dev.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t')[3] ?? '')
  .filter(Boolean)
  .slice(0, 200);
const requests: SearchRequest[] = queries.map((q) => ({ query: `${q} qwzxplkj zzyqvx`, language: 'de', limit: 10 }));

const alone: number[] = [];
const checked: number[] = [];
let empty = 0;
let tried = 0;
let offered = 0;
for (let pass = 0; pass < 2; pass++) {
  for (const req of requests) {
    let t = performance.now();
    const answer = await backend.search(req);
    const a = ms(t);
    t = performance.now();
    const withThem = await withTries(backend, req, await backend.search(req));
    const c = ms(t);
    if (pass === 0 || answer.results.length > 0) continue; // the first pass warms the page cache
    empty++;
    tried += triesFor(req).length;
    offered += withThem.tries?.length ?? 0;
    alone.push(a);
    checked.push(c);
  }
}
backend.close();
rmSync(dir, { recursive: true, force: true });
const row = (name: string, xs: number[]) => ({
  '': name,
  'p50 ms': percentile(xs, 0.5),
  'p90 ms': percentile(xs, 0.9),
  'p99 ms': percentile(xs, 0.99),
});
printTable(
  `${empty} empty searches (of ${requests.length}); ${(tried / empty).toFixed(2)} tries checked and ${(offered / empty).toFixed(2)} offered each`,
  [row('the search alone', alone), row('with its tries checked', checked)],
);
