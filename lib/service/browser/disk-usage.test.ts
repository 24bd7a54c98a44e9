import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diskBytes, ENTRY_MIN_BYTES } from './disk-usage.ts';

const MB = 1024 * 1024;

describe('diskBytes', () => {
  const root = mkdtempSync(join(tmpdir(), 'periscope-disk-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('counts what files hold in nested folders, not what links point at or sparse files claim', async () => {
    const dir = join(root, 'a');
    mkdirSync(join(dir, 'deep', 'er'), { recursive: true });
    writeFileSync(join(dir, 'one'), Buffer.alloc(2 * MB, 1));
    writeFileSync(join(dir, 'deep', 'er', 'two'), Buffer.alloc(3 * MB, 2));
    const outside = join(root, 'outside');
    writeFileSync(outside, Buffer.alloc(8 * MB, 3));
    symlinkSync(outside, join(dir, 'link'));
    symlinkSync(root, join(dir, 'loop'));
    writeFileSync(join(dir, 'sparse'), '');
    truncateSync(join(dir, 'sparse'), 1024 * MB);
    const bytes = await diskBytes(dir);
    assert.ok(bytes >= 5 * MB && bytes < 6 * MB, `${bytes / MB} MiB`);
  });

  it("charges every entry, so empty files and folders cannot exhaust the host's inodes for free", async () => {
    const dir = join(root, 'c');
    mkdirSync(dir);
    for (let i = 0; i < 500; i++) writeFileSync(join(dir, `e${i}`), '');
    for (let i = 0; i < 100; i++) mkdirSync(join(dir, `d${i}`));
    assert.ok((await diskBytes(dir)) >= 600 * ENTRY_MIN_BYTES);
    assert.ok((await diskBytes(dir, 10 * ENTRY_MIN_BYTES)) <= 11 * ENTRY_MIN_BYTES, 'and the walk stops at the limit');
  });

  it('stops counting past the limit it is given, and answers 0 for a folder that is gone', async () => {
    const dir = join(root, 'b');
    mkdirSync(dir);
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}`), Buffer.alloc(MB, i));
    const bounded = await diskBytes(dir, 3 * MB);
    assert.ok(bounded > 3 * MB && bounded < 6 * MB, `${bounded / MB} MiB`);
    assert.equal(await diskBytes(join(root, 'missing')), 0);
  });
});
