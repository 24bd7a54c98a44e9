import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ABSENT, IdTable } from './id-table.ts';

describe('IdTable: page ids to numbers', () => {
  it('gives what a Map gives, for ids near each other and far apart, as it grows', () => {
    // xorshift32, as numbers from 0 to 2³² − 1.
    let seed = 52;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const table = new IdTable();
    const want = new Map<number, number>();
    for (let i = 0; i < 50_000; i++) {
      // Runs of neighbouring ids (pages indexed together), and ids anywhere up to the highest.
      const id = i % 3 ? (next() % 2000) + 1_000_000 : next() % 0x7fffffff;
      const value = (next() % 1000) - 1;
      table.set(id, value);
      want.set(id, value);
    }
    assert.equal(table.size, want.size);
    for (const [id, value] of want) assert.equal(table.get(id), value);
    let absent = 0;
    for (let i = 0; i < 10_000; i++) {
      const id = next() % 0x7fffffff;
      if (!want.has(id)) {
        assert.equal(table.get(id), ABSENT);
        absent++;
      }
    }
    assert.ok(absent > 9_000);
    // Room for every id, and at least half its places empty.
    assert.ok(table.bytes >= 16 * want.size && table.bytes <= 64 * want.size, `${table.bytes} bytes for ${want.size} ids`);
  });

  it('holds page 0 and the highest id, and −1, and sets an id again in place', () => {
    const table = new IdTable(1);
    table.set(0, -1);
    table.set(0x7ffffffe, 7);
    assert.equal(table.get(0), -1);
    assert.equal(table.get(0x7ffffffe), 7);
    assert.equal(table.get(1), ABSENT);
    for (const id of [-1, -5, Number.NaN, 0x7fffffff, 2 ** 40]) assert.equal(table.get(id), ABSENT, String(id));
    table.set(0, 3);
    assert.equal(table.get(0), 3);
    assert.equal(table.size, 2);
  });

  it('refuses what is not a page id or a number it holds', () => {
    const table = new IdTable();
    for (const id of [-1, 0.5, 0x7fffffff, Number.NaN]) assert.throws(() => table.set(id, 0), RangeError, String(id));
    for (const value of [-2, 1.5, 2 ** 31]) assert.throws(() => table.set(1, value), RangeError, String(value));
    assert.equal(table.size, 0);
  });
});
