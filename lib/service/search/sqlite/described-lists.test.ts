import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idsOf, packIds, storeDescribedLists, unpackIds } from './described-lists.ts';
import { DESCRIBED_LISTS_META, openIndexDatabase } from './schema.ts';

describe('packed definition lists', () => {
  it('read a list of rowids as SQLite joins them, past 2^32 and to 2^53', () => {
    assert.deepEqual([...idsOf('7')], [7]);
    assert.deepEqual([...idsOf('0')], [0]);
    const ids = [0, 9, 10, 8192, 4_294_967_296, 819_200_001_234, Number.MAX_SAFE_INTEGER];
    assert.deepEqual([...idsOf(ids.join(','))], ids);
  });

  it('unpack as they were packed, from none to ids near 2^53, in a byte a close id', () => {
    for (const ids of [[], [0], [5], [0, 1, 2, 8192, 8193, 4_294_967_296, 819_200_001_234, Number.MAX_SAFE_INTEGER]])
      assert.deepEqual([...unpackIds(packIds(ids))], ids);
    const dense = Array.from({ length: 1000 }, (_, i) => 8192 * 1000 + i);
    const packed = packIds(dense);
    assert.ok(packed.length < 1010, `${packed.length} bytes for 1,000 ids 1 apart`);
    assert.deepEqual([...unpackIds(packed)], dense);
  });

  it('refuse ids out of order, repeated or not integers, and a blob cut short or running on', () => {
    for (const bad of [[2, 1], [1, 1], [1.5], [-1], [2 ** 53]])
      assert.throws(() => packIds(bad), /ascending integers/, JSON.stringify(bad));
    const packed = packIds([1, 300, 70_000]);
    assert.throws(() => unpackIds(packed.subarray(0, packed.length - 1)), /ends early/);
    assert.throws(() => unpackIds(new Uint8Array([...packed, 1])), /left over/);
    assert.throws(() => unpackIds(new Uint8Array([0xff, 0xff, 0xff, 0x7f])), /ends early/);
    assert.throws(() => unpackIds(new Uint8Array([])), /ends early/);
  });

  it('are stored for the terms that many definitions hold, again each time, as described_terms stands', () => {
    const db = openIndexDatabase(':memory:');
    const add = db.prepare('INSERT INTO described_terms (rowid, terms) VALUES (?, ?)');
    const addUpTo = (last: number, first = 1) => {
      for (let id = first; id <= last; id++) add.run(id * 8192, id % 3 === 0 ? 'often "quoted" rare' : 'often');
    };
    addUpTo(20);
    const read = () =>
      new Map(
        (db.prepare('SELECT term, ids FROM described_lists').all() as { term: string; ids: Uint8Array }[]).map((r) => [
          r.term,
          [...unpackIds(r.ids)],
        ]),
      );
    assert.equal(storeDescribedLists(db, 10), 1);
    assert.deepEqual(read(), new Map([['often', Array.from({ length: 20 }, (_, i) => (i + 1) * 8192)]]));
    assert.deepEqual(
      JSON.parse((db.prepare('SELECT value FROM search_meta WHERE key = ?').get(DESCRIBED_LISTS_META) as { value: string }).value),
      { from: 10 },
    );
    // Ten definitions hold each of `quoted` and `rare` now; a definition gone leaves its lists.
    addUpTo(30, 21);
    assert.equal(storeDescribedLists(db, 10), 3);
    assert.deepEqual(
      read().get('quoted'),
      Array.from({ length: 10 }, (_, i) => (i + 1) * 3 * 8192),
    );
    db.prepare('DELETE FROM described_terms WHERE rowid = ?').run(3 * 8192);
    assert.equal(storeDescribedLists(db, 10), 1);
    assert.deepEqual([...read().keys()], ['often']);
    assert.equal(read().get('often')?.length, 29);
    db.close();
  });
});
