import { DatabaseSync } from 'node:sqlite';
import { PostingsStage } from '#service/search/sqlite/postings.ts';
import { parseQuery } from '#service/search/tokenize.ts';
import { queries } from './_search-load.ts';

/** Random questions made of the judged queries' own words, one to five of them. */
const RANDOM_QUERIES = 500;
/** The first block of candidates, and the deepest one paging reads (query.ts). */
const DEPTHS = [60, 400];

export type FirstStageCheck = {
  queries: number;
  /** Rankings (at each depth) that differ between pruned and exhaustive: must be 0. */
  differ: number;
  /** Of the postings of the queries' terms, the share MaxScore worked out. */
  scoredShare: number;
  /** Mean ms a query of the first stage, scoring every posting and pruned. */
  msEvery: number;
  msPruned: number;
};

/**
 * The first stage on an index file twice, scoring every posting and pruned by MaxScore
 * (max-score.ts), over the judged queries and random ones: the pages, their order and scores and
 * the concepts each holds must be the same (issue 30), and the share of postings pruning works out
 * says how much it saves at this size.
 */
export function checkFirstStage(indexFile: string): FirstStageCheck {
  const db = new DatabaseSync(indexFile, { readOnly: true });
  try {
    const every = new PostingsStage(db, { prune: 'never' });
    const pruned = new PostingsStage(db, { prune: 'always' });
    if (!every.refresh() || !pruned.refresh()) throw new Error(`${indexFile} has no postings`);
    const typed = queries.map((q) => q.query);
    const words = [...new Set(typed.flatMap((q) => q.split(/\s+/)).filter((w) => w.length > 1))];
    let seed = 30;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < RANDOM_QUERIES; i++)
      typed.push(Array.from({ length: 1 + Math.floor(next() * 5) }, () => words[Math.floor(next() * words.length)]).join(' '));
    let differ = 0;
    let scored = 0;
    let total = 0;
    let msEvery = 0;
    let msPruned = 0;
    for (const q of typed) {
      const parsed = parseQuery(q);
      const concepts = parsed.concepts.filter((c) => !c.stop);
      for (const k of DEPTHS) {
        // Each its own query, as a reader runs them: the last one's lists are no longer held for it.
        every.trim();
        pruned.trim();
        let t = performance.now();
        const want = every.rank(concepts, parsed.joins, k);
        msEvery += performance.now() - t;
        t = performance.now();
        const got = pruned.rank(concepts, parsed.joins, k);
        msPruned += performance.now() - t;
        scored += pruned.scored.scored;
        total += pruned.scored.total;
        const ids = want.map((r) => r.id);
        const same =
          JSON.stringify(got) === JSON.stringify(want) &&
          JSON.stringify([...pruned.matched(ids)]) === JSON.stringify([...every.matched(ids)]);
        if (!same) differ++;
      }
    }
    const runs = typed.length * DEPTHS.length;
    return { queries: typed.length, differ, scoredShare: total ? scored / total : 1, msEvery: msEvery / runs, msPruned: msPruned / runs };
  } finally {
    db.close();
  }
}
