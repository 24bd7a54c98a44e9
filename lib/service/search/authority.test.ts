import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageRank } from './authority.ts';

test('the average page has 1, and a page every other page links to has the most', () => {
  // 0 is linked from 1, 2 and 3; 3 from nobody.
  const rank = pageRank(4, [
    [1, 0],
    [2, 0],
    [3, 0],
    [0, 1],
    [1, 2],
  ]);
  const sum = rank.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - 4) < 1e-6, `sum ${sum}`);
  assert.ok((rank[0] as number) > (rank[1] as number));
  assert.ok((rank[1] as number) > (rank[3] as number));
  assert.ok((rank[2] as number) > (rank[3] as number));
});

test('a link counts once however often it is repeated, and a page linking to itself gains nothing', () => {
  const once = pageRank(3, [
    [0, 1],
    [2, 1],
    [1, 0],
  ]);
  const repeated = pageRank(3, [
    [0, 1],
    [0, 1],
    [2, 1],
    [2, 2],
    [1, 0],
    [1, 0],
  ]);
  for (let i = 0; i < 3; i++) assert.ok(Math.abs((once[i] as number) - (repeated[i] as number)) < 1e-9);
});

test('pages without links share their rank with all: no links at all leaves every page at 1', () => {
  assert.deepEqual([...pageRank(3, [])], [1, 1, 1]);
  assert.equal(pageRank(0, []).length, 0);
  // Edges to pages that do not exist are ignored.
  assert.deepEqual([...pageRank(2, [[0, 5]])], [1, 1]);
});
