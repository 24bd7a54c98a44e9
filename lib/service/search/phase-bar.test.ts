import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clock, PhaseBar, type BarOutput } from './phase-bar.ts';

const PHASES = [
  { name: 'reading', weight: 40 },
  { name: 'text', weight: 40 },
  { name: 'postings', weight: 15 },
  { name: 'optimising', weight: 5 },
];

/** A bar on a fake terminal (or not) with a clock the test moves, and the process's CPU time with
 * it: `cores` busy as the clock moves; and the most memory held so far, which `hold` raises. */
function setup(tty: boolean, options: { quiet?: boolean; columns?: number } = {}) {
  const writes: string[] = [];
  const out: BarOutput = { write: (s: string) => writes.push(s), isTTY: tty, columns: options.columns ?? 200 };
  let now = 0;
  let cpu = 0;
  let most = 100 * 2 ** 20;
  const bar = new PhaseBar(out, PHASES, { quiet: options.quiet, now: () => now, cpu: () => cpu, maxMemory: () => most });
  return {
    bar,
    writes,
    hold: (mb: number) => {
      most = Math.max(most, mb * 2 ** 20);
    },
    advance: (ms: number, cores = 1) => {
      now += ms;
      cpu += cores * ms * 1000;
    },
    /** What a terminal shows: the last frame of each line. */
    screen: () =>
      writes
        .join('')
        .split('\n')
        .map((line) => line.split('\r').at(-1)?.replace(CLEAR.slice(1), '') ?? ''),
  };
}

/** What a terminal is told to clear its line with. */
const CLEAR = '\r\x1b[2K';
const percent = (frame: string) => Number(/(\d+)%/.exec(frame)?.[1]);

describe('PhaseBar on a terminal', () => {
  it('is one line redrawn in place that fills once across the phases, naming each, with the time', () => {
    const { bar, writes, advance } = setup(true);
    bar.update('reading', 0.5, '100 pages  docs.warc.gz');
    advance(65_000);
    bar.update('text', 0, '0/50 pages');
    advance(1000);
    bar.update('text', 0.5, '25/50 pages');
    advance(1000);
    bar.update('optimising', 0, '');
    assert.deepEqual(writes, [
      `${CLEAR}[####....................]  20% 0:00  reading (1/4)  100 pages  docs.warc.gz`,
      `${CLEAR}[#########...............]  40% 1:05  text (2/4)  0/50 pages`,
      `${CLEAR}[##############..........]  60% 1:06  text (2/4)  25/50 pages`,
      // A phase skipped counts as done.
      `${CLEAR}[######################..]  95% 1:07  optimising (4/4)`,
    ]);
    const percents = writes.map(percent);
    assert.deepEqual(
      percents,
      [...percents].sort((a, b) => a - b),
      'never goes back to 0 % for a new phase',
    );
    bar.done();
    assert.equal(writes.at(-1), CLEAR, 'done() takes the bar away');
  });

  it('redraws at most ten times a second, but at once for a new phase', () => {
    const { bar, writes, advance } = setup(true);
    bar.update('reading', 0.1, '1');
    for (let i = 2; i <= 10; i++) {
      advance(10);
      bar.update('reading', i / 100, String(i));
    }
    assert.equal(writes.length, 1, '90 ms of updates: drawn once');
    advance(10);
    bar.update('reading', 0.11, '11');
    assert.equal(writes.length, 2);
    assert.match(writes[1] as string, / 11$/);
    advance(1);
    bar.update('text', 0, 'new');
    assert.equal(writes.length, 3, 'a new phase shows at once');
  });

  it('prints messages above the bar and draws it again below', () => {
    const { bar, screen, advance } = setup(true);
    bar.update('reading', 0.25, '5 pages');
    advance(1);
    bar.log('skipped https://x.test/a: not HTML');
    assert.deepEqual(screen(), ['skipped https://x.test/a: not HTML', '[##......................]  10% 0:00  reading (1/4)  5 pages']);
  });

  it('cuts the line at the terminal width, keeping the bar, percentage, time and phase', () => {
    const { bar, writes } = setup(true, { columns: 60 });
    bar.update('reading', 0.5, `1000 pages  ${'very-long-archive-name-'.repeat(5)}.warc.gz`);
    const frame = (writes[0] as string).slice(CLEAR.length);
    assert.equal(frame.length, 59);
    assert.match(frame, /^\[#+\.+\] {2}20% 0:00 {2}reading \(1\/4\)/);
  });

  it('says nothing when quiet, but messages', () => {
    const { bar, writes } = setup(true, { quiet: true });
    bar.update('reading', 0.5, 'x');
    bar.log('failed x.warc: no such file');
    bar.done();
    assert.deepEqual(writes, ['failed x.warc: no such file\n']);
  });
});

describe('PhaseBar elsewhere (a CI log)', () => {
  it('writes plain lines: one when each phase ends, with what it did, how long it took, the cores it kept busy and the most memory so far', () => {
    const { bar, writes, advance, hold } = setup(false);
    bar.update('reading', 0, '0 pages');
    advance(2000, 1.5);
    hold(250.4);
    bar.update('reading', 1, '5370 pages');
    bar.update('text', 0, '0/5058 pages');
    advance(1000, 2);
    hold(1900);
    advance(2000, 1);
    hold(1200);
    bar.update('text', 1, '5058/5058 pages');
    bar.update('optimising', 0, '');
    advance(500);
    bar.update('optimising', 1, '');
    bar.done();
    assert.deepEqual(writes, [
      'reading: 5370 pages, 2.0 s, 1.5 cores, at most 250 MB so far\n',
      'text: 5058/5058 pages, 3.0 s, 1.3 cores, at most 1900 MB so far\n',
      'optimising: 0.5 s, 1.0 cores, at most 1900 MB so far\n',
    ]);
    assert.ok(writes.every((w) => !w.includes('\r') && !w.includes('\x1b')));
  });

  it('tells how far a long phase is every ten seconds at most', () => {
    const { bar, writes, advance } = setup(false);
    bar.update('text', 0, '0/100 pages');
    for (let i = 1; i <= 25; i++) {
      advance(1000);
      bar.update('text', i / 100, `${i}/100 pages`);
    }
    assert.deepEqual(writes, [' 44% 0:10  text (2/4)  10/100 pages\n', ' 48% 0:20  text (2/4)  20/100 pages\n']);
  });
});

describe('PhaseBar phases', () => {
  it('go forward only, and must be known', () => {
    const { bar, writes, advance } = setup(false);
    bar.update('text', 0, 'a');
    advance(20_000);
    bar.update('reading', 0.5, 'late');
    assert.deepEqual(writes, [], 'an earlier phase is ignored');
    assert.throws(() => bar.update('linking', 0, ''), /unknown phase "linking"/);
  });
});

describe('clock', () => {
  it('shows minutes and seconds, and hours when there are any', () => {
    assert.equal(clock(0), '0:00');
    assert.equal(clock(9_999), '0:09');
    assert.equal(clock(75_000), '1:15');
    assert.equal(clock(3_723_000), '1:02:03');
  });
});
