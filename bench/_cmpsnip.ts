import { openIndexDatabase } from '#service/search/sqlite/schema.ts';
import { IndexReader } from '#service/search/sqlite/query.ts';
import { asWrittenBefore0085 } from '#service/search/sqlite/test-index-before-0085.ts';
import { queries } from './_search-load.ts';
import { isDeepStrictEqual } from 'node:util';
const [now, old] = process.argv.slice(2) as [string, string];
if (process.env.CONVERT) { asWrittenBefore0085(old, { rawPostings: false }); openIndexDatabase(old).close(); }
const a = new IndexReader(now), b = new IndexReader(old);
let same = 0, differ = 0, ta = 0, tb = 0;
for (const pass of [0, 1]) for (const q of queries) {
  let t = performance.now();
  const x = a.search({ query: q.query, language: q.language, limit: 10 });
  ta += performance.now() - t; t = performance.now();
  const y = b.search({ query: q.query, language: q.language, limit: 10 });
  tb += performance.now() - t;
  if (pass === 0) { if (isDeepStrictEqual(x, y)) same++; else { differ++; if (differ < 4) console.log(JSON.stringify(q.query), JSON.stringify(x.results.map(r=>r.snippet)).slice(0,300), '\n   vs', JSON.stringify(y.results.map(r=>r.snippet)).slice(0,300)); } }
}
console.log({ same, differ, msNew: (ta / 2).toFixed(0), msOld: (tb / 2).toFixed(0) });
