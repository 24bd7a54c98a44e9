import { DatabaseSync } from 'node:sqlite';
import { IndexReader } from '#service/search/sqlite/query.ts';
import { queries, pct } from './_search-load.ts';
const file = process.argv[2] as string;
const reader = new IndexReader(file);
for (const pass of [0, 1, 2]) {
  const t: number[] = [];
  const t0 = performance.now();
  for (const q of queries) {
    const a = performance.now();
    reader.search({ query: q.query, language: q.language, limit: 10 });
    t.push(performance.now() - a);
  }
  t.sort((a, b) => a - b);
  console.log(file.split('/').at(-2), 'pass', pass, 'total', ((performance.now() - t0) / 1000).toFixed(2), 's p50', pct(t, 0.5).toFixed(2), 'p99', pct(t, 0.99).toFixed(2));
}
reader.close();
