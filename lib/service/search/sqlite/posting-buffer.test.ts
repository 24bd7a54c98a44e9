import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostingBuffer, termOrder } from './posting-buffer.ts';
import { decodePostings, encodePostings, type PostingList } from './postings.ts';

/** The buffer's lists, decoded. */
const lists = (b: PostingBuffer) => [...b.drain()].map(([t, encoded]) => [t, decodePostings(encoded)] as const);
const plain = (l: PostingList) => ({ docs: [...l.docs], freqs: [...l.freqs], starts: [...l.starts], places: [...l.places] });

describe('the postings buffer', () => {
  it('hands out one list a term, in term order, each in the order its pages came', () => {
    const b = new PostingBuffer();
    b.add('kettl', 1, 8, [0, 2]);
    b.add('boil', 1, 1, null);
    b.add('water', 2, 1, [1]);
    b.add('kettl', 2, 3, null);
    b.add('boil', 3, 2, null);
    assert.equal(b.size, 5);
    const out = lists(b).map(([t, l]) => [t, plain(l)]);
    assert.deepEqual(out, [
      ['boil', { docs: [1, 3], freqs: [1, 2], starts: [], places: [] }],
      ['kettl', { docs: [1, 2], freqs: [8, 3], starts: [0, 2, 2], places: [0, 2] }],
      ['water', { docs: [2], freqs: [1], starts: [0, 1], places: [1] }],
    ]);
    assert.ok(!b.has('kettl'), 'drained');
    assert.equal(b.size, 0, 'drained');
    assert.deepEqual([...b.drain()], []);
  });

  it('writes each list as encodePostings writes it, byte for byte, with an odd number of passages too', () => {
    const b = new PostingBuffer();
    b.add('boil', 1, 1.5, null);
    b.add('kettl', 1, 8, [0, 2, 9]);
    b.add('boil', 4, 0.25, null);
    b.add('kettl', 4, 3, null);
    b.add('kettl', 7, 2, [65_535]);
    const list = (docs: number[], freqs: number[], starts: number[], places: number[]): PostingList => ({
      docs: Uint32Array.from(docs),
      freqs: Float32Array.from(freqs),
      starts: Uint32Array.from(starts),
      places: Uint16Array.from(places),
    });
    assert.deepEqual(
      [...b.drain()].map(([t, encoded]) => [t, Buffer.from(encoded).toString('hex')]),
      [
        ['boil', Buffer.from(encodePostings(list([1, 4], [1.5, 0.25], [], []))).toString('hex')],
        ['kettl', Buffer.from(encodePostings(list([1, 4, 7], [8, 3, 2], [0, 3, 3, 4], [0, 2, 9, 65_535]))).toString('hex')],
      ],
    );
  });

  it('grows past its first size and keeps every entry', () => {
    const b = new PostingBuffer();
    const pages = 3000;
    for (let id = 1; id <= pages; id++) {
      b.add('every', id, id, [id % 7, (id % 7) + 1]);
      if (id % 3 === 0) b.add(`t${id % 10}`, id, 1, null);
    }
    const byTerm = new Map(lists(b));
    const every = byTerm.get('every') as PostingList;
    assert.equal(every.docs.length, pages);
    assert.deepEqual([...every.docs.subarray(0, 3)], [1, 2, 3]);
    assert.equal(every.freqs[pages - 1], pages);
    assert.deepEqual([...every.places.subarray(every.starts[pages - 1], every.starts[pages])], [pages % 7, (pages % 7) + 1]);
    assert.equal((byTerm.get('t0') as PostingList).docs.length, 100);
  });

  it("takes a page's terms as one string, each term's list whole, past its table's first size", () => {
    const paged = new PostingBuffer();
    // What it must hand out, gathered with a Map: each term's pages, frequencies and passages.
    const want = new Map<string, { docs: number[]; freqs: number[]; places: number[][] }>();
    // 200 pages of 500 terms drawn from 40,000 (the table starts at 32,768 terms and doubles),
    // some with passage numbers; names are each page's distinct terms in the order first met.
    let seed = 11;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let doc = 1; doc <= 200; doc++) {
      const names = [...new Set(Array.from({ length: 500 }, () => `w${random(40_000).toString(36)}`))];
      const freqs = Float64Array.from(names, (_, k) => 1 + (k % 5));
      const placeCounts = Uint16Array.from(names, (_, k) => (k % 3 === 0 ? 0 : 1 + (k % 4)));
      const places = new Uint16Array(placeCounts.reduce((a, b) => a + b, 0)).map((_, i) => i % 20);
      for (let k = 0, p = 0; k < names.length; k++) {
        const term = names[k] as string;
        const list = want.get(term) ?? { docs: [], freqs: [], places: [] };
        want.set(term, list);
        list.docs.push(doc);
        list.freqs.push(freqs[k] as number);
        list.places.push([...places.subarray(p, (p += placeCounts[k] as number))]);
      }
      paged.addPage(doc, names.join(' '), freqs, placeCounts, places);
    }
    paged.addPage(201, '', new Float64Array(0), new Uint16Array(0), new Uint16Array(0));
    assert.ok(want.size > 32_768, `${want.size} terms`);
    const got = lists(paged);
    assert.deepEqual(
      got.map(([t]) => t),
      [...want.keys()].sort(termOrder),
    );
    for (const [term, l] of got) {
      const w = want.get(term) as { docs: number[]; freqs: number[]; places: number[][] };
      assert.deepEqual([...l.docs], w.docs, term);
      assert.deepEqual([...l.freqs], w.freqs, term);
      assert.deepEqual(
        w.docs.map((_, i) => [...l.places.subarray(l.starts[i], l.starts[i + 1])]),
        w.places,
        term,
      );
    }
  });

  it('says which terms it holds', () => {
    const b = new PostingBuffer();
    b.add('kettl', 1, 1, null);
    assert.ok(b.has('kettl'));
    assert.ok(!b.has('kett'));
    assert.ok(!b.has('boil'));
  });
});

describe('the order of terms in the runs', () => {
  it('is by UTF-16 code units, a total order', () => {
    const terms = ['b', 'a', 'ab', '', 'é', 'z', '\u{1F600}', '\uE000', 'a'];
    assert.deepEqual([...terms].sort(termOrder), ['', 'a', 'a', 'ab', 'b', 'z', 'é', '\u{1F600}', '\uE000']);
    assert.equal(termOrder('a', 'a'), 0);
    assert.equal(termOrder('a', 'b'), -1);
    assert.equal(termOrder('b', 'a'), 1);
  });
});
