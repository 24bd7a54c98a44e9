import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openServiceDatabase } from '#service/database.ts';
import { freshDatabase } from '../helpers/postgres-data.ts';
import { serviceTestStore } from '../helpers/service-data.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * `npm run keys`, run for real: on DATA_DIR/service.db, or in the PostgreSQL pass on the database
 * DATABASE_URL names, where the service (opened here the way it opens its store) finds the keys.
 */
describe(`keys command (${serviceTestStore})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-keys-cli-'));
  let databaseUrl = '';
  before(async () => {
    if (serviceTestStore === 'postgres') databaseUrl = await freshDatabase();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const keys = (...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'server/cli/keys.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    });
  const service = () =>
    openServiceDatabase(
      { dataDir, database: databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'sqlite' } },
      { ratePerMinute: 40, maxInstances: 5 },
    );

  it('creates a key the service accepts, records it, revokes it, and the service refuses it', async () => {
    const created = keys('create', '--name', 'ci robot', '--max-instances', '3');
    assert.equal(created.status, 0, created.stderr);
    const token = created.stdout.trim().split('\n').pop() as string;
    const id = token.split('_')[1] as string;
    const db = await service();
    try {
      assert.deepEqual(
        [(await db.keys.verify(token))?.name, (await db.keys.get(id))?.maxInstances],
        ['ci robot', 3],
        'the service reads the key from the same store',
      );
      assert.equal(keys('record', id, 'on').status, 0);
      assert.equal((await db.keys.get(id))?.record, true);
      assert.match(keys('list').stdout, new RegExp(`^${id}\\tci robot\\t40\\t3\\t60 \\(default\\)\\ton\\t.*\\tlive$`, 'm'));
      // A key's own page action limit (docs/api.md, "Page actions"), and one out of range refused.
      const own = keys('create', '--name', 'fetcher', '--actions-per-minute', '7');
      assert.match(own.stdout, /7 page actions\/minute/);
      const ownId = (own.stdout.trim().split('\n').pop() as string).split('_')[1] as string;
      assert.equal((await db.keys.get(ownId))?.actionsPerMinute, 7);
      assert.equal((await db.keys.get(id))?.actionsPerMinute, null, 'no limit of its own: the service default');
      assert.match(keys('list').stdout, new RegExp(`^${ownId}\\tfetcher\\t40\\t5\\t7\\t`, 'm'));
      assert.notEqual(keys('create', '--name', 'x', '--actions-per-minute', '0').status, 0);
      const revoked = keys('revoke', id);
      assert.equal(revoked.status, 0, revoked.stderr);
      assert.equal(await db.keys.verify(token), null, 'refused by the service at once');
      assert.match(keys('revoke', id).stdout, /already revoked/);
      assert.match(keys('record', '0123456789abcdef', 'on').stderr, /no key with id/);
    } finally {
      await db.close();
    }
  });

  it('says what is wrong with a database it cannot use, without the password', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'server/cli/keys.ts'), 'list'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: 'mysql://user:s3cret@db.example/periscope' },
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /DATABASE_URL/);
    assert.doesNotMatch(r.stderr, /s3cret/);
  });
});
