import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { PostingsStage } from '#service/search/sqlite/postings.ts';
import { parseQuery } from '#service/search/tokenize.ts';
import { queries } from './_search-load.ts';

/**
 * `node bench/block-bounds.ts --index FILE [--min-pages N] [--block N]`: how far block bounds could
 * prune the first stage on an index (decision 0089). For each judged query's term whose list holds
 * at least N pages, the list cut into blocks of `block` entries, each block's highest BM25 term
 * weight (the impact the reader works out as it reads the list) over the list's highest; printed,
 * the median over those lists of the median block's ratio and of the tenth-percentile block's.
 * Near 1, a block can seldom be skipped that the whole list could not.
 */
const { values } = parseArgs({
  options: { index: { type: 'string' }, 'min-pages': { type: 'string', default: '20000' }, block: { type: 'string', default: '128' } },
});
if (!values.index) {
  console.error('usage: node bench/block-bounds.ts --index FILE [--min-pages N] [--block N]');
  process.exit(2);
}
const minPages = Number(values['min-pages']);
const block = Number(values.block);
if (!Number.isInteger(minPages) || minPages < 1 || !Number.isInteger(block) || block < 1) {
  console.error('block-bounds: --min-pages and --block are whole numbers of at least 1');
  process.exit(2);
}

const db = new DatabaseSync(values.index, { readOnly: true });
const stage = new PostingsStage(db);
if (!stage.refresh()) throw new Error(`${values.index} has no postings in a format this version reads`);

const words = [
  ...new Set(
    queries.flatMap((q) =>
      parseQuery(q.query)
        .concepts.filter((c) => !c.stop)
        .flatMap((c) => c.parts),
    ),
  ),
];
const terms = [...new Set(stage.termsOf(words).flat())];
const median: number[] = [];
const tenth: number[] = [];
for (const term of terms) {
  // One list at a time, in whichever format the index keeps it (each its own query: the last
  // is no longer held for it).
  stage.trim();
  const list = stage.lists([term]).get(term);
  if (!list || list.docs.length < minPages) continue;
  const { docs, impacts } = list;
  const bounds: number[] = [];
  for (let from = 0; from < docs.length; from += block) {
    let best = 0;
    for (let i = from; i < Math.min(docs.length, from + block); i++) best = Math.max(best, impacts[i] as number);
    bounds.push(best);
  }
  bounds.sort((a, b) => a - b);
  const best = bounds[bounds.length - 1] as number;
  median.push((bounds[bounds.length >> 1] as number) / best);
  tenth.push((bounds[Math.floor(bounds.length / 10)] as number) / best);
}
const mid = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]?.toFixed(3) ?? '-';
console.log(
  `${values.index}: ${median.length} lists of ${minPages}+ pages, blocks of ${block}: a block's bound over its list's, median block ${mid(median)}, tenth-percentile block ${mid(tenth)}`,
);
db.close();
