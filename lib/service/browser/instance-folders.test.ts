import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  PREPARED_PREFIX,
  createInstanceFolders,
  promoteInstanceFolders,
  removeInstanceFolders,
  removeStaleInstanceFolders,
} from './instance-folders.ts';

describe('instance folders', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-instance-folders-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes home, downloads, uploads and run under a folder named for the instance', async () => {
    const f = await createInstanceFolders(dir, null);
    assert.equal(basename(f.root), f.name);
    for (const sub of [f.home, f.downloads, f.uploads, f.run]) assert.ok(existsSync(sub), sub);
    await removeInstanceFolders(f);
    assert.equal(existsSync(f.root), false);
  });

  it('makes the instances folder again when it is gone, as it is made at start', async () => {
    const gone = join(dir, 'gone');
    mkdirSync(gone, { mode: 0o711 });
    rmdirSync(gone);
    const f = await createInstanceFolders(gone, null);
    assert.ok(existsSync(f.home));
    assert.equal(statSync(gone).mode & 0o777, 0o711);
    await removeInstanceFolders(f);
    rmdirSync(gone);
  });

  it("names a prepared launch's folder apart until it starts, then keeps its name and contents", async () => {
    const prepared = await createInstanceFolders(dir, null, { prepared: true });
    assert.equal(basename(prepared.root), `${PREPARED_PREFIX}${prepared.name}`);
    writeFileSync(join(prepared.downloads, 'kept.txt'), 'x');
    // A descriptor held before the rename (as the sandbox holds its folders) still reaches them after.
    const held = openSync(prepared.downloads, 'r');
    const running = await promoteInstanceFolders(prepared);
    writeFileSync(`/proc/self/fd/${held}/through-the-descriptor.txt`, 'y');
    closeSync(held);
    assert.equal(readFileSync(join(running.downloads, 'through-the-descriptor.txt'), 'utf8'), 'y');
    assert.equal(running.name, prepared.name);
    assert.equal(basename(running.root), prepared.name);
    assert.equal(existsSync(prepared.root), false);
    assert.equal(readFileSync(join(running.downloads, 'kept.txt'), 'utf8'), 'x');
    assert.deepEqual(await promoteInstanceFolders(running), running, 'promoting a running one changes nothing');
    await removeInstanceFolders(running);
  });

  it('removes what an earlier run left, prepared or running', async () => {
    await createInstanceFolders(dir, null);
    await createInstanceFolders(dir, null, { prepared: true });
    assert.equal(await removeStaleInstanceFolders(dir), 2);
    assert.deepEqual(readdirSync(dir), []);
  });
});
