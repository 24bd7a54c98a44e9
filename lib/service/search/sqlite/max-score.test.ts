import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlockedList, packBlocked } from './blocked-postings.ts';
import { impact, listBound, maxScoreTopK, type Term } from './max-score.ts';
import { WholeList } from './term-list.ts';

const K1 = 1.2;
const B = 0.75;

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
function exhaustive(terms: readonly Term[], norm: Float64Array, k: number, allowed: Uint8Array | null) {
  const scores = new Map<number, number>();
  for (const t of terms) {
    const { docs, freqs } = t.list.all();
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i] as number;
      scores.set(d, (scores.get(d) ?? 0) + impact(t.idf, freqs[i] as number, norm[d] as number, K1));
    }
  }
  return [...scores]
    .filter(([d]) => !allowed || allowed[d])
    .map(([id, s]) => ({ id, s }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, k);
}

const noPlaces = { starts: new Uint32Array(0), places: new Uint16Array(0) };

/** A term's list read whole, with its bound (as an index before decision 0089 is read). */
function whole(docs: Uint32Array, freqs: Float32Array, idf: number, norm: Float64Array): Term {
  return { list: new WholeList({ docs, freqs, ...noPlaces }), idf, bound: listBound(docs, freqs, idf, norm, K1), blocks: null };
}

/**
 * A corpus of `pages` pages and `count` terms, some common and some rare (Zipf-like), with
 * frequencies and lengths drawn at random; `coarse` makes few distinct values, so that scores tie.
 * Each term both read whole and stored in blocks of `block` entries (blocked-postings.ts), its
 * bounds from the blocks' as postings.ts works them out.
 */
function corpus(rand: () => number, pages: number, count: number, coarse: boolean, block = 16) {
  const lengths = Array.from({ length: pages }, () => (coarse ? 2 + 3 * Math.floor(rand() * 3) : 1 + Math.floor(rand() * rand() * 400)));
  const avg = lengths.reduce((a, b) => a + b, 0) / pages;
  const normOf = (len: number) => K1 * (1 - B + (B * len) / avg);
  const norm = Float64Array.from(lengths, normOf);
  const terms: Term[] = [];
  const blocked: Term[] = [];
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
    const d32 = Uint32Array.from(docs);
    const f32 = Float32Array.from(freqs);
    terms.push(whole(d32, f32, idf, norm));
    const list = new BlockedList(packBlocked({ docs: d32, freqs: f32, ...noPlaces }, (id) => lengths[id] as number, block));
    const blocks = list.blockBounds((f, len) => impact(idf, f, normOf(len), K1));
    blocked.push({ list, idf, bound: Math.max(0, ...blocks), blocks });
  }
  return { norm, terms, blocked };
}

describe('MaxScore first stage', () => {
  it('finds exactly the pages, order and scores of scoring every posting, lists whole or in blocks: random corpora and queries, ties, site filters, any k', () => {
    let queries = 0;
    let scoredWhole = 0;
    let scoredBlocked = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rand = random(seed);
      const coarse = seed % 3 === 0;
      const { norm, terms, blocked } = corpus(rand, 400 + Math.floor(rand() * 1600), 24, coarse, [4, 16, 128][seed % 3]);
      terms.forEach((t, i) => assert.equal((blocked[i] as Term).bound, t.bound, 'the blocks bound a list exactly'));
      for (let q = 0; q < 40; q++) {
        const picked = terms.map((_, i) => i).filter(() => rand() < 0.2);
        if (!picked.length) picked.push(Math.floor(rand() * terms.length));
        // The query's own order of terms, not the corpus's.
        picked.sort(() => rand() - 0.5);
        const allowed = rand() < 0.25 ? Uint8Array.from(norm, () => (rand() < 0.3 ? 1 : 0)) : null;
        for (const k of [1, 3, 10, 60, 400]) {
          const want = exhaustive(
            picked.map((i) => terms[i] as Term),
            norm,
            k,
            allowed,
          );
          const got = maxScoreTopK(
            picked.map((i) => terms[i] as Term),
            norm,
            K1,
            k,
            allowed,
          );
          assert.deepEqual(got.ranked, want, `seed ${seed}, query ${q}, k ${k}`);
          const inBlocks = maxScoreTopK(
            picked.map((i) => blocked[i] as Term),
            norm,
            K1,
            k,
            allowed,
          );
          assert.deepEqual(inBlocks.ranked, want, `in blocks: seed ${seed}, query ${q}, k ${k}`);
          assert.ok(inBlocks.scored <= got.scored, `seed ${seed}, query ${q}, k ${k}: the blocks' bounds leave out more, never less`);
          scoredWhole += got.scored;
          scoredBlocked += inBlocks.scored;
          queries++;
        }
      }
    }
    console.log("SCORED", scoredBlocked, scoredWhole);
    assert.ok(queries >= 2000);
    assert.ok(scoredBlocked < scoredWhole, `${scoredBlocked} postings scored in blocks, ${scoredWhole} whole`);
  });

  it('skips postings when a rare term decides the best pages, and scores every one when k covers them all', () => {
    const rand = random(99);
    const { norm, terms, blocked } = corpus(rand, 5000, 12, false, 128);
    for (const [name, set] of [
      ['whole', terms],
      ['in blocks', blocked],
    ] as const) {
      // The most common term and a rare one.
      const query = [set[0] as Term, set[11] as Term];
      const total = query.reduce((a, t) => a + t.list.df, 0);
      const pruned = maxScoreTopK(query, norm, K1, 10, null);
      assert.deepEqual(pruned.ranked, exhaustive(query, norm, 10, null), name);
      assert.ok(pruned.scored < total / 2, `${name}: ${pruned.scored} of ${total} postings scored`);
      const all = maxScoreTopK(query, norm, K1, 5000, null);
      assert.equal(all.scored, total, `${name}: with every page wanted, nothing can be skipped`);
      assert.deepEqual(all.ranked, exhaustive(query, norm, 5000, null), name);
    }
  });

  it('unpacks only the blocks of a common term that the pages looked up are in', () => {
    const rand = random(7);
    const { norm, blocked } = corpus(rand, 20_000, 12, false, 128);
    const common = blocked[0] as Term;
    const before = common.list.bytes;
    const pruned = maxScoreTopK([common, blocked[11] as Term], norm, K1, 10, null);
    assert.ok(pruned.ranked.length === 10);
    const after = common.list.bytes;
    common.list.all();
    const whole = common.list.bytes;
    assert.ok(after > before, 'some of its blocks were unpacked');
    assert.ok(after - before < (whole - before) / 4, `${after - before} bytes unpacked of ${whole - before}`);
  });

  it('answers nothing for no terms or no k, and a page once however many terms it holds', () => {
    const norm = new Float64Array([1, 1, 1]);
    assert.deepEqual(maxScoreTopK([], norm, K1, 10, null).ranked, []);
    const t = whole(Uint32Array.from([0, 2]), Float32Array.from([1, 3]), 2, norm);
    assert.deepEqual(maxScoreTopK([t], norm, K1, 0, null).ranked, []);
    const got = maxScoreTopK([t, t], norm, K1, 10, null).ranked;
    assert.deepEqual(
      got.map((r) => r.id),
      [2, 0],
    );
  });
});
