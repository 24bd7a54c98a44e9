import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAMPING, LinkList, pageRank } from './authority.ts';

test('the average page has 1, and a page every other page links to has the most', () => {
  // 0 is linked from 1, 2 and 3; 3 from nobody.
  const rank = pageRank(
    4,
    LinkList.of([
      [1, 0],
      [2, 0],
      [3, 0],
      [0, 1],
      [1, 2],
    ]),
  );
  const sum = rank.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - 4) < 1e-6, `sum ${sum}`);
  assert.ok((rank[0] as number) > (rank[1] as number));
  assert.ok((rank[1] as number) > (rank[3] as number));
  assert.ok((rank[2] as number) > (rank[3] as number));
});

test('a link counts once however often it is repeated, and a page linking to itself gains nothing', () => {
  const once = pageRank(
    3,
    LinkList.of([
      [0, 1],
      [2, 1],
      [1, 0],
    ]),
  );
  const repeated = pageRank(
    3,
    LinkList.of([
      [0, 1],
      [0, 1],
      [2, 1],
      [2, 2],
      [1, 0],
      [1, 0],
    ]),
  );
  for (let i = 0; i < 3; i++) assert.ok(Math.abs((once[i] as number) - (repeated[i] as number)) < 1e-9);
});

test('pages without links share their rank with all: no links at all leaves every page at 1', () => {
  assert.deepEqual([...pageRank(3, new LinkList())], [1, 1, 1]);
  assert.equal(pageRank(0, new LinkList()).length, 0);
  // Links to pages that do not exist are ignored.
  assert.deepEqual([...pageRank(2, LinkList.of([[0, 5]]))], [1, 1]);
});

test("a page's targets are kept once each, in order, without itself or pages past the last", () => {
  const links = LinkList.of([
    [2, 1],
    [0, 3],
    [2, 0],
    [0, 1],
    [2, 1],
    [1, 1],
    [0, 3],
    [1, 9],
    [7, 0],
  ]);
  assert.equal(links.size, 9);
  const { start, to } = links.adjacency(4);
  assert.deepEqual([...start], [0, 2, 2, 4, 4]);
  assert.deepEqual([...to], [1, 3, 0, 1]);
});

/** PageRank as authority.ts worked it out before its links were kept in typed arrays: the targets
 * of each page in a set. */
function referenceRank(pages: number, pairs: [number, number][]): Float64Array {
  const targets = new Map<number, Set<number>>();
  for (const [from, to] of pairs) {
    if (from === to || to >= pages || from >= pages) continue;
    let set = targets.get(from);
    if (!set) targets.set(from, (set = new Set()));
    set.add(to);
  }
  let rank = new Float64Array(pages).fill(1);
  for (let it = 0; it < 40; it++) {
    let dangling = 0;
    for (let i = 0; i < pages; i++) if (!targets.get(i)?.size) dangling += rank[i] as number;
    const next = new Float64Array(pages).fill(1 - DAMPING + (DAMPING * dangling) / pages);
    for (let i = 0; i < pages; i++) {
      const set = targets.get(i);
      if (!set?.size) continue;
      for (const t of set) next[t] = (next[t] as number) + (DAMPING * (rank[i] as number)) / set.size;
    }
    let moved = 0;
    for (let i = 0; i < pages; i++) moved = Math.max(moved, Math.abs((next[i] as number) - (rank[i] as number)));
    rank = next;
    if (moved < 1e-6) break;
  }
  return rank;
}

test('the same ranks as a set of targets a page, on a random graph with repeated links and links to self', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return (seed >>> 8) % n;
  };
  const pages = 300;
  const pairs: [number, number][] = [];
  for (let k = 0; k < 3000; k++) pairs.push([random(pages), random(k % 3 ? 20 : pages)]);
  const got = pageRank(pages, LinkList.of(pairs));
  const want = referenceRank(pages, pairs);
  for (let i = 0; i < pages; i++)
    assert.ok(Math.abs((got[i] as number) - (want[i] as number)) < 1e-12, `page ${i}: ${got[i]} against ${want[i]}`);
});
