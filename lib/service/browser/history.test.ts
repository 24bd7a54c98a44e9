import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { migrate } from '#shared/sqlite.ts';
import { serviceMigrations } from '../migrations.ts';
import { BrowserHistory } from './history.ts';

const HOUR = 3_600_000;
const page = (url: string) => ({ tabs: 1, page: { url, title: url } });

function history(maxEndedPerKey = 3) {
  const db = new DatabaseSync(':memory:');
  migrate(db, serviceMigrations);
  return new BrowserHistory(db, { retentionMs: 24 * HOUR, recordingRetentionMs: 7 * 24 * HOUR, maxEndedPerKey });
}

describe('BrowserHistory', () => {
  it("lists a key's browsers newest first, live and ended, with how each ended and its last page", () => {
    const h = history();
    h.started('br_a', 'k1', 1_000);
    h.started('br_b', 'k1', 2_000);
    h.started('br_c', 'k2', 3_000);
    h.ended('br_a', 'client-closed', 5_000, page('https://a.test/'));
    const listed = h.list('k1', 6_000);
    assert.deepEqual(
      listed.map((r) => [r.id, r.endedAt, r.endReason]),
      [
        ['br_b', null, null],
        ['br_a', 5_000, 'client-closed'],
      ],
    );
    assert.deepEqual(listed[1]?.state, page('https://a.test/'));
    assert.deepEqual(listed[0]?.state, { tabs: 0, page: null });
  });

  it('records an end once: a second end of the same browser changes nothing', () => {
    const h = history();
    h.started('br_a', 'k1', 1_000);
    h.ended('br_a', 'stopped', 2_000, page('https://first.test/'));
    h.ended('br_a', 'shutdown', 3_000, page('https://second.test/'));
    assert.equal(h.list('k1', 4_000)[0]?.endReason, 'stopped');
  });

  it('ends what a killed predecessor left, as service-restarted', () => {
    const h = history();
    h.started('br_a', 'k1', 1_000);
    h.started('br_b', 'k1', 1_500);
    h.ended('br_b', 'client-closed', 1_600, page('https://b.test/'));
    assert.equal(h.endLeftovers(2_000), 1);
    assert.deepEqual(
      h.list('k1', 3_000).map((r) => [r.id, r.endReason]),
      [
        ['br_b', 'client-closed'],
        ['br_a', 'service-restarted'],
      ],
    );
  });

  it('keeps ended browsers for the retention and the newest few per key, and every live one', () => {
    const h = history(2);
    for (let i = 0; i < 5; i++) {
      h.started(`br_${i}`, 'k1', i * 1_000);
      h.ended(`br_${i}`, 'client-closed', i * 1_000 + 500, page(`https://${i}.test/`));
    }
    h.started('br_live', 'k1', 100);
    assert.deepEqual(
      h.list('k1', 10_000).map((r) => r.id),
      ['br_4', 'br_3', 'br_live'],
      'listed: the newest two ended and the live one',
    );
    assert.equal(h.prune(10_000), 3);
    assert.equal(h.prune(10_000), 0);
    assert.deepEqual(
      h.list('k1', 4_500 + 24 * HOUR + 1).map((r) => r.id),
      ['br_live'],
      'past the retention only the live one stays',
    );
    assert.equal(h.prune(4_500 + 24 * HOUR + 1), 2);
  });
});
