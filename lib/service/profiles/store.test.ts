import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ProfileFolder } from './store.ts';

describe('the folder of sealed profiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-profile-store-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back a stored profile larger than one read, byte for byte', async () => {
    const folder = new ProfileFolder(join(dir, 'large'));
    await folder.init();
    // More than one read of 16 MiB, and not a multiple of it.
    const sealed = randomBytes(16 * 1024 * 1024 + 12_345);
    await folder.write('key', 'big', sealed);
    const read = await folder.read('key', 'big', sealed.length);
    assert.ok(read?.equals(sealed));
  });

  it('reads back an empty file and a small one, refuses one past the limit, and has none for a name never stored', async () => {
    const folder = new ProfileFolder(join(dir, 'small'));
    await folder.init();
    await folder.write('key', 'empty', Buffer.alloc(0));
    await folder.write('key', 'small', Buffer.from('sealed bytes'));
    assert.equal((await folder.read('key', 'empty', 100))?.length, 0);
    assert.equal((await folder.read('key', 'small', 100))?.toString(), 'sealed bytes');
    await assert.rejects(folder.read('key', 'small', 5), /past the limit/);
    assert.equal(await folder.read('key', 'missing', 100), null);
  });
});
