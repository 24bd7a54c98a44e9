import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addAnswerScores, byScore, type Scored } from './answer-scores.ts';
import { answerScore, type Candidate } from './rank.ts';
import { testCandidate } from './test-candidate.ts';

/** A small seeded generator, so that a failure is the same failure every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const candidate = (id: number): Candidate => testCandidate({ id, bm25: 1, url: `https://h.test/${id}` });

/** Candidates with true features under their bounds, some in copy groups, some of them not sure. */
function candidates(next: () => number, n: number, question: number) {
  const truth = new Map<number, { passage: number; linkShare: number }>();
  const scored: Scored[] = [];
  for (let id = 1; id <= n; id++) {
    const bounds = { passage: next(), linkShare: next() * next() };
    truth.set(id, { passage: bounds.passage * next(), linkShare: bounds.linkShare * next() });
    // Coarse base scores, so that ties are common.
    const base = Math.round(next() * 8) / 4;
    const group = next() < 0.2 && id > 1 ? Math.ceil(next() * (id - 1)) : id;
    scored.push({ c: candidate(id), base, bound: answerScore(bounds, question), s: base, group, sure: true });
  }
  // A group is sure only when every copy is listable: one unlistable copy makes the whole group unsure.
  const unsure = new Set(scored.filter(() => next() < 0.15).map((x) => x.group));
  for (const x of scored) x.sure = !unsure.has(x.group);
  return { scored, truth };
}

/** The groups a page lists, best first, as the reader lists them: each group once, where its best
 * copy stands. A sure group is listed; whether an unsure one is depends on the copy shown, which is
 * chosen by the exact scores (here: by the best copy's id). */
const listed = (scored: Scored[], wanted: number) => {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const x of [...scored].sort(byScore)) {
    if (seen.has(x.group)) continue;
    seen.add(x.group);
    if (!x.sure && x.c.id % 2) continue;
    out.push(x.group);
    if (out.length >= wanted) break;
  }
  return out;
};

test('the groups listed, and their order, are those that working out every candidate gives', () => {
  const next = random(7);
  let workedOut = 0;
  let all = 0;
  for (let round = 0; round < 400; round++) {
    const question = round % 5 === 0 ? 1 : next();
    const n = 5 + Math.floor(next() * 80);
    const wanted = 1 + Math.floor(next() * 15);
    const a = candidates(random(round + 1), n, question);
    const b = candidates(random(round + 1), n, question);
    const compute = (truth: typeof a.truth) => (among: Scored[]) => {
      for (const x of among) Object.assign(x.c, truth.get(x.c.id));
    };
    addAnswerScores(a.scored, question, Infinity, compute(a.truth));
    workedOut += addAnswerScores(b.scored, question, wanted, compute(b.truth));
    all += n;
    assert.deepEqual(listed(b.scored, wanted), listed(a.scored, wanted), `round ${round}`);
    // A group is worked out whole: its copies are chosen among exact scores.
    const done = new Set(b.scored.filter((x) => x.s !== x.base || x.c.passage || x.c.linkShare).map((x) => x.group));
    for (const x of b.scored) if (done.has(x.group)) assert.equal(x.s, x.base + answerScore(x.c, question));
  }
  assert.ok(workedOut < all * 0.8, `only the candidates that can reach the page are worked out (${workedOut} of ${all})`);
});

test('a query that reads as no question works nothing out, and every candidate for a deeper page', () => {
  const { scored } = candidates(random(3), 20, 0.5);
  let asked = 0;
  assert.equal(
    addAnswerScores(scored, 0, 5, () => asked++),
    0,
  );
  assert.equal(asked, 0);
  assert.equal(
    addAnswerScores(scored, 0.5, Infinity, () => {}),
    20,
  );
});
