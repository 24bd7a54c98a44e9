import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { IndexReader } from '#service/search/sqlite/query.ts';

/**
 * `npm run bench -- search-quality` (or `node bench/search-quality.ts [--index FILE] [--queries
 * FILE...] [--kind K] [--misses N] [--ranks FILE]`): the judged queries run straight through the
 * query path on an index file (no service, no rate limit), MRR@10,
 * Success@1 and Success@10 per kind, and for each file its two halves: the queries of even and of
 * odd Stack Overflow questions (by the question's number, so that the several phrasings of one
 * question fall in the same half), or even and odd lines for the known-item files. Ranking is
 * fitted on one half and reported on the other (decision 0082). Without `--index` it reads
 * DATA_DIR/index.db (./data by default).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    queries: { type: 'string', multiple: true },
    misses: { type: 'string', default: '0' },
    kind: { type: 'string' },
    ranks: { type: 'string' },
  },
});
const file = values.index ?? join(process.env.DATA_DIR ?? join(ROOT, 'data'), 'index.db');
if (!existsSync(file)) {
  // Run by `npm run bench` with no index built: nothing to measure, which is not a failure.
  console.error(`search-quality: no index at ${file} (npm run index -- ../shared/corpus/docs.warc.gz, or pass --index)`);
  process.exit(values.index ? 2 : 0);
}
const files = values.queries ?? [join(CORPUS, 'queries-dev.tsv'), join(CORPUS, 'queries-natural-dev.tsv')];

type Query = { id: string; kind: string; language: string; query: string; relevant: Set<string>; half: 'even' | 'odd' };

/** The half a query falls in: by its Stack Overflow question's number for natural questions. */
export function halfOf(id: string, line: number): 'even' | 'odd' {
  const question = /^nat(\d+)_/.exec(id)?.[1];
  const n = question === undefined ? line : Number(question);
  return n % 2 === 0 ? 'even' : 'odd';
}

const queries: Query[] = files.flatMap((f) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l, i) => {
      const [id = '', kind = '', language = 'en', query = '', relevant = ''] = l.split('\t');
      return { id, kind, language, query, relevant: new Set(relevant.split(' ')), half: halfOf(id, i) };
    })
    .filter((q) => !values.kind || q.kind === values.kind),
);

const reader = new IndexReader(file);
const ranks: { q: Query; rank: number; top: string[] }[] = [];
const t0 = performance.now();
for (const q of queries) {
  const { results } = reader.search({ query: q.query, language: q.language, limit: 10 });
  const urls = results.map((r) => r.url);
  ranks.push({ q, rank: urls.findIndex((u) => q.relevant.has(u)) + 1, top: urls });
}
const ms = (performance.now() - t0) / queries.length;
reader.close();

const mrr = (set: typeof ranks) => set.reduce((s, r) => s + (r.rank ? 1 / r.rank : 0), 0) / Math.max(1, set.length);
const share = (set: typeof ranks, ok: (r: number) => boolean) => set.filter((r) => ok(r.rank)).length / Math.max(1, set.length);
console.log(`index ${file}; ${queries.length} queries, ${ms.toFixed(2)} ms each`);
console.log('kind       n     MRR@10  S@1    S@10   even   odd');
for (const kind of [...new Set(queries.map((q) => q.kind)), 'all but natural']) {
  const set = ranks.filter((r) => (kind === 'all but natural' ? r.q.kind !== 'natural' : r.q.kind === kind));
  if (!set.length) continue;
  const f = (x: number) => x.toFixed(3).padEnd(7);
  console.log(
    `${kind.padEnd(10)} ${String(set.length).padEnd(5)} ${f(mrr(set))}${f(share(set, (r) => r === 1))}${f(share(set, (r) => r > 0))}` +
      `${f(mrr(set.filter((r) => r.q.half === 'even')))}${f(mrr(set.filter((r) => r.q.half === 'odd')))}`,
  );
}
if (values.ranks)
  writeFileSync(values.ranks, ranks.map((r) => `${r.q.id}\t${r.q.kind}\t${r.rank}\t${r.q.query}\t${r.top[0] ?? ''}\n`).join(''));
const misses = Number(values.misses);
for (const r of ranks.filter((r) => r.rank !== 1).slice(0, misses))
  console.log(`miss ${r.q.id} [${r.q.language}] ${JSON.stringify(r.q.query)} rank=${r.rank || '>10'} top=${r.top.slice(0, 3).join(' ')}`);
