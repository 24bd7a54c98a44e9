import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compare, sideOf } from '#app/_inspector/compare.ts';
import type { RecordingEvent } from '#portal/service-client/key-browsers.ts';

/** A run: page loads at the given times, a frame shortly after each, and whatever else is given. */
type Unnumbered = { t: number; type: string; [field: string]: unknown };
function run(pages: [number, string][], extra: Unnumbered[] = []): RecordingEvent[] {
  const events: Unnumbered[] = [{ t: 0, type: 'start' }, ...extra];
  pages.forEach(([t, url], i) => {
    events.push({ t, type: 'navigation', url });
    events.push({ t: t + 50, type: 'frame', offset: i * 100, length: 100 });
    events.push({ t: t + 90, type: 'frame', offset: i * 100 + 1000, length: 10 });
  });
  return events.sort((x, y) => x.t - y.t).map((e, i) => ({ ...e, seq: i + 1 }));
}

describe('comparing two recordings', () => {
  it('lines the runs up by page load and finds the first page where they part', () => {
    const a = sideOf(
      run([
        [100, 'https://shop.test/'],
        [1000, 'https://shop.test/cart'],
        [2000, 'https://shop.test/pay'],
      ]),
    );
    const b = sideOf(
      run(
        [
          [80, 'https://shop.test/#top'],
          [900, 'https://shop.test/cart'],
          [1500, 'https://shop.test/error'],
        ],
        [
          { t: 1600, type: 'console', level: 'error', text: 'payment failed' },
          { t: 1700, type: 'request', method: 'POST', url: 'https://shop.test/api/pay', status: 500, start: 1650, ms: 40 },
          { t: 950, type: 'console', level: 'log', text: 'fine' },
        ],
      ),
    );
    const c = compare(a, b);
    assert.equal(c.firstDifference, 2, 'a fragment is not a new page; the third pages differ');
    assert.deepEqual(
      c.pairs.map((p) => p.same),
      [true, true, false],
    );
    const third = c.pairs[2]!;
    assert.equal(third.b?.url, 'https://shop.test/error');
    assert.deepEqual(
      third.b?.problems.map((r) => r.text),
      ['payment failed', 'POST https://shop.test/api/pay'],
    );
    assert.deepEqual(third.a?.problems, []);
    assert.deepEqual(c.pairs[1]!.b?.problems, [], 'a log line is no problem');
    // The screen each page settled on: its last frame before the next page began.
    assert.equal(third.b?.frame?.offset, 2 * 100 + 1000);
    assert.equal(c.pairs[0]!.a?.frame?.offset, 1000);
  });

  it('says where one run stopped opening pages, and nothing when both opened the same ones', () => {
    const long = sideOf(
      run([
        [0, 'https://a.test/'],
        [500, 'https://a.test/2'],
      ]),
    );
    const short = sideOf(run([[0, 'https://a.test/']]));
    const c = compare(long, short);
    assert.equal(c.firstDifference, 1);
    assert.equal(c.pairs[1]!.b, null);
    assert.equal(compare(long, long).firstDifference, null);
    assert.deepEqual(compare(sideOf([]), sideOf([])).pairs, []);
  });

  it('gives a page that drew nothing no frame rather than another page’s', () => {
    const events: RecordingEvent[] = [
      { seq: 1, t: 0, type: 'navigation', url: 'https://a.test/' },
      { seq: 2, t: 10, type: 'frame', offset: 0, length: 5 },
      { seq: 3, t: 100, type: 'navigation', url: 'https://b.test/' },
    ];
    const [first, second] = sideOf(events).steps;
    assert.equal(first?.frame?.offset, 0);
    assert.equal(second?.frame, null);
  });
});
