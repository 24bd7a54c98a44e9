import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'periscope-operator-'));
const run = (script: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
  });
const keys = (...args: string[]) => run('server/cli/keys.ts', args);

describe('operator interface', () => {
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keys create prints the key last, list shows it without the secret, revoke ends it', () => {
    const created = keys('create', '--name', 'ci robot', '--rate-per-minute', '600', '--max-instances', '3');
    assert.equal(created.status, 0, created.stderr);
    const token = created.stdout.trim().split('\n').pop() as string;
    assert.match(token, /^psk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const id = token.split('_')[1] as string;

    const listed = keys('list');
    assert.equal(listed.status, 0);
    const row = listed.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
    assert.deepEqual(row.split('\t').slice(0, 4), [id, 'ci robot', '600', '3']);
    assert.match(row, /\tlive$/);
    assert.ok(!listed.stdout.includes(token.slice(`psk_${id}_`.length)), 'list never shows a secret');

    assert.equal(keys('revoke', id).status, 0);
    assert.match(keys('list').stdout, new RegExp(`${id}.*\\trevoked`));
    assert.match(keys('revoke', id).stdout, /already revoked/);
  });

  it('keys refuses bad arguments with a usage message and exit code 2', () => {
    for (const args of [
      ['create'],
      ['create', '--name', ' '],
      ['create', '--name', 'x', '--rate-per-minute', '0'],
      ['create', '--name', 'x', '--max-instances', 'many'],
      ['revoke'],
      ['revoke', 'nope'],
      ['frobnicate'],
      ['create', '--bogus'],
    ]) {
      const r = keys(...args);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, /keys: .+/, args.join(' '));
    }
    assert.match(keys('--help').stdout, /usage:/);
  });

  it('the service refuses an invalid configuration, naming each variable, with exit code 2', () => {
    const r = run('server/service/main.ts', [], { SERVICE_PORT: 'http', BROWSER_CAPACITY: '0', CHROME_PATH: '/nonexistent/chrome' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /SERVICE_PORT/);
    assert.match(r.stderr, /BROWSER_CAPACITY/);
    const chrome = run('server/service/main.ts', [], { SERVICE_PORT: '0', CHROME_PATH: '/nonexistent/chrome' });
    assert.equal(chrome.status, 2);
    assert.match(chrome.stderr, /CHROME_PATH: \/nonexistent\/chrome is not an executable file/);
  });
});
