import { answerScore, type Candidate } from './rank.ts';

/**
 * A candidate on its way to the ranked list: its score without answerScore() (`base`), the most
 * answerScore() can add to it (`bound`), its score so far (`s`), its copy group (rank.ts
 * copiesByLanguage: copies of one page are listed once, as one address) and whether the group is
 * listed whichever copy is shown (`sure`).
 */
export type Scored = { c: Candidate; base: number; bound: number; s: number; group: number; sure: boolean };

/** Best first, then by page id (the ranked list's order). */
export const byScore = (a: Scored, b: Scored): number => b.s - a.s || a.c.id - b.c.id;

/** Float sums in another order may differ in their last bits: a candidate is left out only when it
 * falls short by more than this. */
const EPSILON = 1e-9;

/**
 * Adds answerScore() to the candidates it can lift onto the page asked for, and to no other
 * (decision 0082, latency): a question's best passages and the words of the links to a page are
 * the dearest features of a candidate, and most candidates of a question end far below the page.
 *
 * `wanted`: how many addresses the page asked for lists (one past its end, which says whether a
 * next page follows; Infinity for every candidate). `compute` sets `passage` and `linkShare` of the
 * candidates it is given. Exact: the addresses listed, in their order, are those that working out
 * every candidate gives. A candidate's base score is a lower bound of its score, and `base + bound`
 * an upper one; once the candidates worked out hold `wanted` groups that are listed whichever copy
 * is shown, at a score T, a candidate whose upper bound is below T comes after them whatever its
 * features are (groups are distinct addresses: copies are distinct pages). Copies are worked out
 * together, so that the copy shown is chosen among scores as exact as before. Returns how many
 * candidates were worked out.
 */
export function addAnswerScores(scored: Scored[], question: number, wanted: number, compute: (among: Scored[]) => void): number {
  if (question <= 0 || !scored.length) return 0;
  const groups = new Map<number, Scored[]>();
  for (const x of scored) {
    const members = groups.get(x.group);
    if (members) members.push(x);
    else groups.set(x.group, [x]);
  }
  const done = new Set<number>();
  let count = 0;
  const work = (among: readonly Scored[]) => {
    const batch: Scored[] = [];
    for (const x of among)
      if (!done.has(x.group)) {
        done.add(x.group);
        for (const m of groups.get(x.group) as Scored[]) batch.push(m);
      }
    if (!batch.length) return;
    compute(batch);
    for (const x of batch) x.s = x.base + answerScore(x.c, question);
    count += batch.length;
  };
  if (!Number.isFinite(wanted)) {
    work(scored);
    return count;
  }
  // First the best by their upper bounds until `wanted` sure groups are in, then every candidate
  // whose upper bound reaches the score at which the worked-out ones hold `wanted` sure groups.
  const byBound = [...scored].sort((a, b) => b.base + b.bound - (a.base + a.bound) || a.c.id - b.c.id);
  const first: Scored[] = [];
  const sure = new Set<number>();
  for (const x of byBound) {
    if (sure.size >= wanted) break;
    first.push(x);
    if (x.sure) sure.add(x.group);
  }
  work(first);
  const threshold = scoreHolding(
    scored.filter((x) => done.has(x.group)),
    wanted,
  );
  work(byBound.filter((x) => !done.has(x.group) && x.base + x.bound >= threshold - EPSILON));
  return count;
}

/** The score at which `wanted` sure groups are listed, best first; -Infinity when fewer are. */
function scoreHolding(among: Scored[], wanted: number): number {
  const seen = new Set<number>();
  for (const x of among.sort(byScore)) {
    if (x.sure) seen.add(x.group);
    if (seen.size >= wanted) return x.s;
  }
  return -Infinity;
}
