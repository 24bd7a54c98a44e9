import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clock, filterRows, frameAt, framesOf, marksOf, rowsOf } from '#app/_inspector/timeline.ts';
import type { RecordingEvent } from '#portal/service-client/key-browsers.ts';

const events: RecordingEvent[] = [
  { seq: 1, t: 0, type: 'start' },
  { seq: 2, t: 100, type: 'navigation', url: 'https://a.test/' },
  { seq: 3, t: 150, type: 'frame', offset: 0, length: 10 },
  { seq: 4, t: 900, type: 'request', method: 'GET', url: 'https://a.test/x', status: 500, ms: 20, start: 880 },
  { seq: 5, t: 1000, type: 'console', level: 'error', text: 'boom' },
  { seq: 6, t: 1100, type: 'frame', offset: 10, length: 7 },
  { seq: 7, t: 1200, type: 'navigation', url: 'https://a.test/#top', sameDocument: true },
  { seq: 8, t: 1300, type: 'request', method: 'GET', url: 'http://127.0.0.1:1/', failed: 'net::ERR_UNSAFE_PORT', start: 1290, ms: 10 },
  { seq: 9, t: 1400, type: 'console', level: 'log', text: 'fine' },
  {
    seq: 10,
    t: 1500,
    type: 'request',
    method: 'GET',
    url: 'http://a.test/file',
    failed: 'net::ERR_ABORTED',
    canceled: true,
    start: 1450,
    ms: 5,
  },
  { seq: 11, t: 1600, type: 'download', name: 'file.pdf', size: 2048 },
];

describe('inspector timeline', () => {
  it('shows the last frame taken at or before a moment, the first before any', () => {
    const frames = framesOf(events);
    assert.equal(frameAt(frames, 0)?.offset, 0);
    assert.equal(frameAt(frames, 1099)?.offset, 0);
    assert.equal(frameAt(frames, 1100)?.offset, 10);
    assert.equal(frameAt(frames, 99_999)?.offset, 10);
    assert.equal(frameAt([], 5), null);
  });

  it('marks navigations (not those within a page) and every error, failed request and bad status', () => {
    assert.deepEqual(marksOf(events), [
      { t: 100, kind: 'navigation' },
      { t: 900, kind: 'error' },
      { t: 1000, kind: 'error' },
      { t: 1300, kind: 'error' },
    ]);
  });

  it('lists console and network rows in time order, a request where it began', () => {
    const rows = rowsOf(events);
    assert.deepEqual(
      rows.map((r) => [r.panel, r.t, r.bad]),
      [
        ['console', 100, false],
        ['network', 880, true],
        ['console', 1000, true],
        ['network', 1290, true],
        ['console', 1400, false],
        ['network', 1450, false],
        ['console', 1600, false],
      ],
    );
    assert.equal(rows[3]?.note, 'ERR_UNSAFE_PORT · 10 ms');
    assert.equal(rows[5]?.note, 'canceled · 5 ms', 'a canceled request (a download took over) is no problem');
    assert.deepEqual([rows[6]?.text, rows[6]?.note], ['Downloaded file.pdf', '2048 bytes']);
    assert.deepEqual(
      filterRows(rows, 'BOOM', false).map((r) => r.seq),
      [5],
    );
    assert.deepEqual(
      filterRows(rows, '', true).map((r) => r.seq),
      [4, 5, 8],
    );
  });

  it('tells who had control when, in the console and on the scrubber, without taking a service seq', () => {
    const control = [
      { t: 50, name: 'Ada' },
      { t: 950, name: 'Grace' },
      { t: 1250, name: null },
      { t: 1350, name: 'Ada' },
    ];
    const rows = rowsOf(events, control).filter((r) => r.note === 'control');
    assert.deepEqual(
      rows.map((r) => [r.t, r.text, r.panel]),
      [
        [50, 'Ada has control', 'console'],
        [950, 'Grace took over control', 'console'],
        [1250, 'Nobody has control', 'console'],
        [1350, 'Ada has control', 'console'],
      ],
    );
    assert.ok(rows.every((r) => r.seq < 0 && !r.bad));
    assert.deepEqual(new Set(rowsOf(events, control).map((r) => r.seq)).size, rowsOf(events).length + control.length);
    assert.deepEqual(
      marksOf(events, control)
        .filter((m) => m.kind === 'control')
        .map((m) => m.t),
      [50, 950, 1250, 1350],
    );
    assert.deepEqual(
      filterRows(rowsOf(events, control), 'grace', false).map((r) => r.t),
      [950],
    );
  });

  it("goes to a frame of the row's own page when the screen had not shown that page yet at the row's moment", () => {
    const tab = 'T1';
    const pageEvents: RecordingEvent[] = [
      { seq: 1, t: 0, type: 'start' },
      { seq: 2, t: 100, type: 'navigation', tab, url: 'https://a.test/' },
      { seq: 3, t: 300, type: 'frame', tab, offset: 0, length: 10 },
      { seq: 4, t: 500, type: 'console', tab, level: 'log', text: 'on a' },
      { seq: 5, t: 1000, type: 'navigation', tab, url: 'https://b.test/' },
      { seq: 6, t: 1020, type: 'console', tab, level: 'error', text: 'boom on b' },
      { seq: 7, t: 1100, type: 'request', tab, method: 'GET', url: 'https://b.test/x', failed: 'net::ERR_FAILED', start: 1030, ms: 70 },
      // Another tab's screen in between is not the page of tab T1.
      { seq: 8, t: 1200, type: 'frame', tab: 'T2', offset: 10, length: 10 },
      { seq: 9, t: 1400, type: 'frame', tab, offset: 20, length: 10 },
      { seq: 10, t: 1500, type: 'console', tab, level: 'error', text: 'later on b' },
      {
        seq: 11,
        t: 2000,
        type: 'navigation',
        tab,
        url: 'https://nowhere.test/',
        failed: 'net::ERR_TUNNEL_CONNECTION_FAILED',
        reason: 'nowhere.test did not resolve',
      },
    ];
    const frames = framesOf(pageEvents);
    const rows = rowsOf(pageEvents);
    const row = (text: string) => rows.find((r) => r.text.includes(text))!;
    // The defect the test could see: at the error's own moment, the screen is still page a's.
    assert.equal(frameAt(frames, row('boom on b').t)?.offset, 0);
    assert.equal(row('boom on b').seekTo, 1400);
    assert.equal(frameAt(frames, row('boom on b').seekTo)?.offset, 20, "the click shows page b's first frame");
    assert.equal(row('b.test/x').seekTo, 1400, 'a request of page b, from where it began');
    assert.equal(row('Navigated to https://b.test/').seekTo, 1400, "a navigation goes to its page's first frame");
    assert.equal(row('on a').seekTo, 500, 'a row whose page is on screen stays at its moment');
    assert.equal(row('later on b').seekTo, 1500);
    // A page with no frame yet (the recording ends first) keeps the row's own moment.
    assert.equal(row('nowhere.test').seekTo, 2000);
  });

  it('tells a page that did not load by its address and why, as a problem', () => {
    const failed: RecordingEvent[] = [
      {
        seq: 1,
        t: 10,
        type: 'navigation',
        tab: 'T',
        url: 'https://10.255.255.1/',
        failed: 'net::ERR_TUNNEL_CONNECTION_FAILED',
        reason: 'refused by the egress policy: 10.255.255.1 is in 10.0.0.0/8',
      },
      { seq: 2, t: 20, type: 'navigation', tab: 'T', url: 'http://127.0.0.1:1/', failed: 'net::ERR_UNSAFE_PORT' },
    ];
    assert.deepEqual(
      rowsOf(failed).map((r) => [r.text, r.bad]),
      [
        ['Could not open https://10.255.255.1/: refused by the egress policy: 10.255.255.1 is in 10.0.0.0/8', true],
        ['Could not open http://127.0.0.1:1/: ERR_UNSAFE_PORT', true],
      ],
    );
    assert.deepEqual(
      marksOf(failed).map((m) => m.kind),
      ['error', 'error'],
    );
  });

  it('reads time as m:ss.t', () => {
    assert.equal(clock(0), '0:00.0');
    assert.equal(clock(61_250), '1:01.2');
  });
});
