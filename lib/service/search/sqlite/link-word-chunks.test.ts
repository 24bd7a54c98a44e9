import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHUNK_PAGES, ChunkRow, chunkOf, packChunk, type ChunkEntry } from './link-word-chunks.ts';

/** A seeded generator, so that a failure is repeated. */
function random(seed: number): () => number {
  let x = seed;
  return () => (x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

/** Entries of chunk `chunk`: a random share of its pages, masks up to 31 bits, 0 to 40 blocks each. */
function entries(chunk: number, share: number, seed: number): ChunkEntry[] {
  const next = random(seed);
  const out: ChunkEntry[] = [];
  for (let at = 0; at < CHUNK_PAGES; at++) {
    if (next() >= share) continue;
    const blocks = [...new Set(Array.from({ length: Math.floor(next() * 41) }, () => Math.floor(next() * 4000)))].sort((a, b) => a - b);
    out.push({ id: chunk * CHUNK_PAGES + at, mask: Math.floor(next() * 2 ** 31), blocks: Uint16Array.from(blocks) });
  }
  return out;
}

describe('link word chunks', () => {
  it('give back every page, its mask and its blocks, and find each page and no other', () => {
    for (const [chunk, share, seed] of [
      [0, 1, 1],
      [3, 0.3, 2],
      [977, 0.01, 3],
      [5, 0, 4],
    ] as const) {
      const written = entries(chunk, share, seed);
      const row = new ChunkRow(packChunk(written), chunk);
      assert.equal(row.size, written.length);
      assert.deepEqual(row.entries(), written);
      const at = new Set(written.map((e) => e.id));
      for (let id = chunk * CHUNK_PAGES - 3; id < (chunk + 1) * CHUNK_PAGES + 3; id++) {
        const i = row.find(id);
        if (!at.has(id)) assert.equal(i, -1, `page ${id} is not in the row`);
        else {
          const e = written[i] as ChunkEntry;
          assert.equal(e.id, id);
          assert.equal(row.mask(i), e.mask);
          assert.deepEqual(row.blocks(i), e.blocks);
        }
      }
    }
  });

  it('number a chunk by its pages’ ids', () => {
    assert.deepEqual([0, CHUNK_PAGES - 1, CHUNK_PAGES, 5 * CHUNK_PAGES + 7].map(chunkOf), [0, 0, 1, 5]);
  });

  it('are read from a row that does not start its buffer', () => {
    const written = entries(2, 0.5, 9);
    const packed = packChunk(written);
    const inside = new Uint8Array(packed.byteLength + 3);
    inside.set(packed, 3);
    assert.deepEqual(new ChunkRow(inside.subarray(3), 2).entries(), written);
  });

  it('refuse entries out of order, of two chunks, or more than a chunk holds', () => {
    const e = (id: number): ChunkEntry => ({ id, mask: 1, blocks: new Uint16Array([1]) });
    assert.throws(() => packChunk([e(5), e(4)]), /out of order/);
    assert.throws(() => packChunk([e(5), e(5)]), /out of order/);
    assert.throws(() => packChunk([e(5), e(CHUNK_PAGES + 5)]), /another chunk/);
    assert.throws(() => packChunk(Array.from({ length: CHUNK_PAGES + 1 }, (_, i) => e(i))), /at most/);
  });

  it('refuse a row cut short or with bytes over', () => {
    const packed = packChunk(entries(1, 0.2, 5));
    assert.throws(() => new ChunkRow(packed.subarray(0, 1), 1), /ends early/);
    assert.throws(() => new ChunkRow(packed.subarray(0, 40), 1), /ends early|does not match/);
    assert.throws(() => new ChunkRow(packed.subarray(0, packed.byteLength - 2), 1), /does not match/);
    const longer = new Uint8Array(packed.byteLength + 2);
    longer.set(packed);
    assert.throws(() => new ChunkRow(longer, 1), /does not match/);
  });
});
