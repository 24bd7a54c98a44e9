import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { impact, maxScoreTopK, type MaxScoreOptions, type Term } from './max-score.ts';
import { pageBits, wantsBits } from './page-bits.ts';

const K1 = 1.2;

/** A seeded generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every posting scored, summed in the terms' order, the k best by score then id: the exhaustive
 * first stage (postings.ts) written plainly. */
function exhaustive(terms: readonly Term[], k: number, allowed: Uint8Array | null) {
  const scores = new Map<number, number>();
  for (const t of terms)
    for (let i = 0; i < t.docs.length; i++) {
      const d = t.docs[i] as number;
      scores.set(d, (scores.get(d) ?? 0) + (t.impacts[i] as number));
    }
  return [...scores]
    .filter(([d]) => !allowed || allowed[d])
    .map(([id, s]) => ({ id, s }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, k);
}

/** A term's list as postings.ts reads it: each posting's impact, as float32, and the highest;
 * a long list's pages as a bitmap too. */
function scoredTerm(docs: readonly number[], freqs: readonly number[], idf: number, norm: Float64Array): Term {
  const impacts = Float32Array.from(docs, (d, i) => impact(idf, freqs[i] as number, norm[d] as number, K1));
  const ids = Uint32Array.from(docs);
  return {
    docs: ids,
    impacts,
    bound: Math.max(0, ...impacts),
    pages: wantsBits(ids.length, norm.length) ? pageBits(ids, norm.length) : null,
  };
}

/** A corpus of `pages` pages and `count` terms, some common and some rare (Zipf-like), with
 * frequencies and lengths drawn at random; `coarse` makes few distinct values, so that scores tie. */
function corpus(rand: () => number, pages: number, count: number, coarse: boolean) {
  const norm = new Float64Array(pages);
  for (let d = 0; d < pages; d++) norm[d] = coarse ? K1 * (0.5 + Math.floor(rand() * 3) / 2) : K1 * (0.25 + 1.5 * rand());
  const terms: Term[] = [];
  for (let t = 0; t < count; t++) {
    const share = Math.min(0.9, 0.6 / (t + 1) + rand() * 0.02);
    const docs: number[] = [];
    const freqs: number[] = [];
    for (let d = 0; d < pages; d++)
      if (rand() < share) {
        docs.push(d);
        freqs.push(coarse ? 1 + Math.floor(rand() * 2) : 1 + Math.floor(rand() * rand() * 20) + (rand() < 0.3 ? 0.5 : 0));
      }
    const df = docs.length;
    const idf = Math.max(1e-6, Math.log((pages - df + 0.5) / (df + 0.5)));
    terms.push(scoredTerm(docs, freqs, idf, norm));
  }
  return { norm, terms };
}

describe('MaxScore first stage', () => {
  // The windows the walk goes by as it chooses them, and every window as narrow as can be (a page's
  // scores and lists' places carried across many windows) or as wide as a corpus (one window).
  for (const options of [{}, { window: 32 }, { window: 4096 }] as MaxScoreOptions[])
    it(`finds exactly the pages, order and scores of scoring every posting: random corpora and queries, ties, site filters, any k (windows ${options.window ?? 'chosen'})`, () => {
      let queries = 0;
      for (let seed = 1; seed <= 12; seed++) {
        const rand = random(seed);
        const coarse = seed % 3 === 0;
        const { norm, terms } = corpus(rand, 400 + Math.floor(rand() * 1600), 24, coarse);
        // The common terms' lists are looked in through their bitmaps, the others by galloping.
        assert.ok(terms.some((t) => t.pages) && terms.some((t) => !t.pages), `seed ${seed}: lists of both kinds`);
        for (let q = 0; q < 40; q++) {
          const picked = terms.filter(() => rand() < 0.2);
          if (!picked.length) picked.push(terms[Math.floor(rand() * terms.length)] as Term);
          // The query's own order of terms, not the corpus's.
          picked.sort(() => rand() - 0.5);
          const allowed = rand() < 0.25 ? Uint8Array.from(norm, () => (rand() < 0.3 ? 1 : 0)) : null;
          for (const k of [1, 3, 10, 60, 400]) {
            const want = exhaustive(picked, k, allowed);
            const got = maxScoreTopK(picked, k, allowed, options);
            assert.deepEqual(got.ranked, want, `seed ${seed}, query ${q}, k ${k}`);
            queries++;
          }
        }
      }
      assert.ok(queries >= 2000);
    });

  it('skips postings when a rare term decides the best pages, and scores every one when k covers them all', () => {
    const rand = random(99);
    const { terms } = corpus(rand, 5000, 12, false);
    // The most common term and a rare one.
    const query = [terms[0] as Term, terms[11] as Term];
    const total = query.reduce((a, t) => a + t.docs.length, 0);
    const pruned = maxScoreTopK(query, 10, null);
    assert.deepEqual(pruned.ranked, exhaustive(query, 10, null));
    assert.ok(pruned.scored < total / 2, `${pruned.scored} of ${total} postings scored`);
    const all = maxScoreTopK(query, 5000, null);
    assert.equal(all.scored, total, 'with every page wanted, nothing can be skipped');
    assert.deepEqual(all.ranked, exhaustive(query, 5000, null));
  });

  it('goes through a large corpus window by window, the windows as it chooses them, to the same pages', () => {
    const rand = random(7);
    const { terms } = corpus(rand, 60_000, 8, false);
    let scored = 0;
    let total = 0;
    for (let q = 0; q < 30; q++) {
      const picked = terms.filter(() => rand() < 0.5);
      if (picked.length < 2) picked.push(terms[0] as Term, terms[7] as Term);
      for (const k of [10, 60]) {
        const got = maxScoreTopK(picked, k, null);
        assert.deepEqual(got.ranked, exhaustive(picked, k, null), `query ${q}, k ${k}`);
        scored += got.scored;
        total += picked.reduce((a, t) => a + t.docs.length, 0);
      }
    }
    // Lists stop being walked as θ rises.
    assert.ok(scored < total / 2, `${scored} of ${total} postings scored`);
  });

  it("scores a page in the terms' own order, as scoring every posting does, where another order rounds otherwise", () => {
    // Summed in this order, 2⁻⁵³ + 2⁻⁵³ + 1 is 1 + 2⁻⁵²; from 1, each 2⁻⁵³ rounds away. The first
    // 100 pages hold only the common term, so θ is 1 and the two tiny lists are looked in, last.
    const tiny = 2 ** -53;
    const list = (docs: number[], x: number): Term => ({
      docs: Uint32Array.from(docs),
      impacts: Float32Array.from(docs, () => x),
      bound: x,
      pages: null,
    });
    const late = Array.from({ length: 20 }, (_, i) => 5000 + i);
    const query = [list(late, tiny), list(late, tiny), list([...Array.from({ length: 100 }, (_, i) => i), ...late], 1)];
    const want = exhaustive(query, 10, null);
    assert.deepEqual(
      want.map((r) => r.id),
      late.slice(0, 10),
    );
    assert.equal(want[0]?.s, 1 + 2 ** -52);
    for (const options of [{}, { window: 32 }] as MaxScoreOptions[]) assert.deepEqual(maxScoreTopK(query, 10, null, options).ranked, want);
  });

  it('refuses a window that is not a power of two from 32 to 65,536 pages wide', () => {
    const t = scoredTerm([0, 2], [1, 3], 2, new Float64Array([1, 1, 1]));
    for (const window of [0, 16, 48, 100, 1 << 17, Number.NaN])
      assert.throws(() => maxScoreTopK([t], 10, null, { window }), RangeError, `window ${window}`);
    assert.equal(maxScoreTopK([t], 10, null, { window: 64 }).ranked.length, 2);
  });

  it('answers nothing for no terms or no k, and a page once however many terms it holds', () => {
    const norm = new Float64Array([1, 1, 1]);
    assert.deepEqual(maxScoreTopK([], 10, null).ranked, []);
    const t = scoredTerm([0, 2], [1, 3], 2, norm);
    assert.deepEqual(maxScoreTopK([t], 0, null).ranked, []);
    const got = maxScoreTopK([t, t], 10, null).ranked;
    assert.deepEqual(
      got.map((r) => r.id),
      [2, 0],
    );
  });
});
