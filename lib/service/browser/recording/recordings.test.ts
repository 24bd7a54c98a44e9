import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { serviceTestData, serviceTestStore } from '../../../../tests/helpers/service-data.ts';
import { SINGLE_NODE } from '../history.ts';
import { Recordings } from './recordings.ts';

const HOUR = 3_600_000;

describe(`Recordings.prune (${serviceTestStore})`, () => {
  it('removes a recording past its retention, files and row, and keeps a newer one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-recs-'));
    try {
      const history = serviceTestData().history({ retentionMs: HOUR, recordingRetentionMs: 2 * HOUR, maxEndedPerKey: 10 });
      const recordings = new Recordings({ dir, maxBytes: 1_000_000, fps: 2, history, log: pino({ level: 'silent' }) });
      for (const [id, endedAt] of [
        ['br_old', 0],
        ['br_new', HOUR],
      ] as const) {
        await history.started({ id, keyId: 'k1', nodeId: SINGLE_NODE, at: endedAt - 1000, recorded: true });
        await history.ended(id, 'client-closed', endedAt, { tabs: 1, page: null });
        mkdirSync(recordings.folder(id));
        writeFileSync(join(recordings.folder(id), 'events.ndjson'), '{}\n');
      }
      assert.deepEqual(
        (await history.list('k1', 1.5 * HOUR)).map((r) => r.id),
        ['br_new', 'br_old'],
        'a recorded browser stays listed past the history retention',
      );
      const now = 2 * HOUR + 1;
      assert.equal(await recordings.prune(now), 1);
      assert.equal(existsSync(recordings.folder('br_old')), false, 'its files are gone');
      assert.equal(existsSync(recordings.folder('br_new')), true);
      assert.equal((await history.get('br_old', 'k1'))?.recordingBytes, null, 'no longer marked recorded');
      await history.prune(now);
      assert.equal(await history.get('br_old', 'k1'), undefined, 'and its row goes with the history');
      assert.ok(await history.get('br_new', 'k1'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
