import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseEventQuery } from '#shared/protocol/recording-search.ts';
import { eventMatches, searchRecordings } from './search.ts';
import { EVENTS_FILE, type RecordedEvent } from './writer.ts';

const q = (query: string) => parseEventQuery(new URLSearchParams(query), Date.parse('2026-11-23T12:00:00Z'));
const ev = (fields: Record<string, unknown>): RecordedEvent => ({ seq: 1, t: 0, type: 'request', ...fields });

describe('searching recordings', () => {
  it('reads a query: kinds, a status or a class of them, a host, words, a window of 7 days by default', () => {
    const all = q('');
    assert.equal(all.until - all.since, 7 * 86_400_000);
    assert.deepEqual([...all.kinds].sort(), ['console', 'dialog', 'error', 'navigation', 'request']);
    assert.deepEqual(q('status=5xx').status, { from: 500, to: 599 });
    assert.deepEqual(q('status=404').status, { from: 404, to: 404 });
    assert.equal(q('status=failed').status, 'failed');
    assert.equal(q('host=API.Example.com').host, 'api.example.com');
    assert.equal(q('q=%20Boom%20').text, 'boom');
    for (const bad of ['status=6xx', 'status=50', 'type=frame', 'limit=501', 'since=2026-11-23', 'x=1', 'host=a/b', 'q=']) {
      assert.throws(() => q(bad), { code: 'invalid' }, bad);
    }
  });

  it('matches a request by status, class, failure and host (a host under it too, a port when named)', () => {
    const five = ev({ url: 'https://api.example.com/x', status: 503 });
    assert.ok(eventMatches(five, q('status=5xx&host=example.com')));
    assert.ok(eventMatches(five, q('status=503')));
    assert.ok(!eventMatches(five, q('status=4xx')));
    assert.ok(!eventMatches(five, q('host=ample.com')), 'a host, not a suffix of its name');
    assert.ok(!eventMatches(five, q('host=example.com:8080')));
    assert.ok(eventMatches(ev({ url: 'http://127.0.0.1:8080/', status: 200 }), q('host=127.0.0.1:8080')));
    assert.ok(eventMatches(ev({ url: 'http://x.test/', failed: 'net::ERR_FAILED' }), q('status=failed')));
    assert.ok(!eventMatches(ev({ url: 'http://x.test/', status: 200 }), q('status=failed')));
    assert.ok(!eventMatches(ev({ url: 'http://x.test/', failed: 'net::ERR_ABORTED', canceled: true }), q('status=failed')), 'canceled');
    assert.ok(!eventMatches(ev({ type: 'console', text: '503' }), q('status=503')), 'a status means a request');
  });

  it('matches words in an address, a message or a text; never frames or navigations within a page', () => {
    assert.ok(eventMatches(ev({ type: 'console', level: 'error', text: 'Boom 42' }), q('q=boom')));
    assert.ok(eventMatches(ev({ type: 'dialog', message: 'Sure?' }), q('q=sure&type=dialog')));
    assert.ok(!eventMatches(ev({ type: 'dialog', message: 'Sure?' }), q('q=sure&type=console')));
    assert.ok(!eventMatches(ev({ type: 'frame', offset: 0 }), q('')));
    assert.ok(!eventMatches(ev({ type: 'navigation', url: 'https://a.test/#x', sameDocument: true }), q('type=navigation')));
  });

  it('reads the sessions that overlap the window, newest matches first, up to the limit', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rec-search-'));
    try {
      const start = Date.parse('2026-11-23T10:00:00Z');
      const sessions = [];
      for (const [i, offset] of [0, 3_600_000, -30 * 86_400_000].entries()) {
        const dir = join(root, `s${i}`);
        await mkdir(dir);
        const lines = [
          { seq: 1, t: 10, type: 'request', url: `https://s${i}.test/`, status: 500 },
          { seq: 2, t: 20, type: 'console', level: 'log', text: `session ${i}` },
        ];
        await writeFile(join(dir, EVENTS_FILE), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
        sessions.push({ id: `br_${i}`, startedAt: start + offset, endedAt: start + offset + 1000, dir });
      }
      const found = await searchRecordings(sessions, q('status=500'), start + 2 * 3_600_000);
      assert.deepEqual(
        found.matches.map((m) => m.browser),
        ['br_1', 'br_0'],
        'the month-old session is outside the window',
      );
      assert.equal(found.sessions, 2);
      assert.equal(found.truncated, false);
      const one = await searchRecordings(sessions, q('limit=1'), start + 2 * 3_600_000);
      assert.equal(one.matches.length, 1);
      assert.equal(one.truncated, true);
      // A query that matches everything keeps only the newest: the same answer as reading all.
      const all = await searchRecordings(sessions, q('limit=3'), start + 2 * 3_600_000);
      assert.deepEqual(
        all.matches.map((m) => [m.browser, m.event.seq]),
        [
          ['br_1', 2],
          ['br_1', 1],
          ['br_0', 2],
        ],
      );
      // A search reads at most its budget of bytes, and says it stopped.
      const budget = { bytes: 100 };
      const cut = await searchRecordings(sessions, q('limit=10'), start + 2 * 3_600_000, budget);
      assert.equal(cut.truncated, true);
      assert.equal(cut.sessions, 2, 'the second session is where the budget ran out');
      assert.ok(cut.matches.length < 4);
      const missing = await searchRecordings(
        [{ id: 'br_x', startedAt: start, endedAt: null, dir: join(root, 'none') }],
        q(''),
        start + 1000,
      );
      assert.deepEqual([missing.matches, missing.truncated], [[], false], 'a recording with no events file yet reads as empty');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
