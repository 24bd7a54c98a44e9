import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readEvents, screenSize } from './reader.ts';
import { RecordingWriter, SCREEN_FILE } from './writer.ts';

describe('RecordingWriter', () => {
  it('writes events in order and frames back to back, each frame named by an event with its bytes', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'periscope-rec-')), 'br_x');
    try {
      const w = await RecordingWriter.open(dir, 1_000_000);
      w.event('navigation', { url: 'https://a.test/', seq: 99, type: 'forged' });
      w.frame(Buffer.from('first'), { tab: 't1' });
      w.frame(Buffer.from('second!'), { tab: 't1' });
      await w.close();
      const events = await readEvents(dir);
      assert.deepEqual(
        events.map((e) => [e.seq, e.type]),
        [
          [1, 'navigation'],
          [2, 'frame'],
          [3, 'frame'],
        ],
        "an event's fields cannot overwrite the record's own",
      );
      assert.deepEqual(
        events.slice(1).map((e) => [e.offset, e.length]),
        [
          [0, 5],
          [5, 7],
        ],
      );
      assert.equal(readFileSync(join(dir, SCREEN_FILE), 'latin1'), 'firstsecond!');
      assert.equal(await screenSize(dir), 12);
      assert.deepEqual(
        (await readEvents(dir, 2)).map((e) => e.seq),
        [3],
      );
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });

  it('stops at the size cap, after one event that says so', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'periscope-rec-')), 'br_y');
    try {
      const w = await RecordingWriter.open(dir, 200);
      w.event('console', { text: 'fits' });
      w.frame(Buffer.alloc(500), { tab: 't1' });
      w.event('console', { text: 'after the cap' });
      await w.close();
      const events = await readEvents(dir);
      assert.deepEqual(
        events.map((e) => e.type),
        ['console', 'capped'],
      );
      assert.equal(await screenSize(dir), 0);
      assert.ok(w.capped);
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });

  it('leaves a half-written last line for the next read', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'periscope-rec-')), 'br_z');
    try {
      const w = await RecordingWriter.open(dir, 1_000_000);
      w.event('console', { text: 'whole' });
      await w.close();
      const { appendFileSync } = await import('node:fs');
      appendFileSync(join(dir, 'events.ndjson'), '{"seq":2,"t":5,"ty');
      assert.deepEqual(
        (await readEvents(dir)).map((e) => e.seq),
        [1],
      );
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
