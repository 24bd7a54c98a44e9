import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadOrCreateSecret, writeSecret } from './secret-file.ts';

describe('secret files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secret-file-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('generates an owner-only secret once, then reads it back', () => {
    const file = join(dir, 'secrets', 's');
    const first = loadOrCreateSecret(file);
    assert.equal(first.created, true);
    assert.ok(first.secret.length >= 32);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'secrets')).mode & 0o777, 0o700);
    const again = loadOrCreateSecret(file);
    assert.deepEqual(again, { secret: first.secret, created: false });
  });

  it('replaces a secret atomically, keeping 0600', () => {
    const file = join(dir, 'secrets', 'r');
    loadOrCreateSecret(file);
    writeSecret(file, 'n'.repeat(40));
    assert.equal(readFileSync(file, 'utf8').trim(), 'n'.repeat(40));
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});
