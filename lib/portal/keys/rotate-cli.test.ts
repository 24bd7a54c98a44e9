import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadPortalConfig } from '../config.ts';
import { SecretBox } from '../crypto/secretbox.ts';
import { SqlitePortalData } from '../data/sqlite.ts';
import { KeyUseLog } from '../teams/audit.ts';
import { account, RecordingIssuer } from '../../../tests/helpers/portal-doubles.ts';
import { resolvePortalSecrets, secretFiles } from './secrets.ts';
import { createTeam } from '../teams/teams.ts';
import { addKey, withTeamKey } from './vault.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const KEY = 'rk_live_rotate_me_0123456789abcdef';

/** The operator command `npm run portal:rotate-secret`, run for real against a DATA_DIR. */
describe('secret rotation command', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'portal-rotate-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(ROOT, 'server/cli/portal-rotate-secret.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: dataDir, KEY_ENCRYPTION_SECRET: '', ...env },
    });

  it('re-encrypts the stored keys with a new generated secret and replaces the file', async () => {
    const config = loadPortalConfig({ DATA_DIR: dataDir });
    const oldSecret = resolvePortalSecrets(config).keyEncryptionSecret;
    const data = SqlitePortalData.open(dataDir);
    const vault = { data, box: new SecretBox(oldSecret), issuer: new RecordingIssuer(), keyUse: new KeyUseLog(data) };
    const ann = await account(data, 'Ann');
    const team = await createTeam(data, ann, { name: 'T' });
    await addKey(vault, ann, team.id, { mode: 'add', name: 'K', key: KEY });
    data.close();

    const result = run([]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /re-encrypted 1 key/);
    const newSecret = readFileSync(secretFiles(dataDir).keyEncryption, 'utf8').trim();
    assert.notEqual(newSecret, oldSecret);

    const reopened = SqlitePortalData.open(dataDir);
    try {
      const use = (secret: string) =>
        withTeamKey(
          { data: reopened, box: new SecretBox(secret), issuer: new RecordingIssuer(), keyUse: new KeyUseLog(reopened) },
          ann,
          team.id,
          null,
          'search',
          async (t) => t,
        );
      assert.equal(await use(newSecret), KEY);
      await assert.rejects(use(oldSecret), /does not hold/);
    } finally {
      reopened.close();
    }
  });

  it('with the secret in the environment, needs the new one named and refuses a short one', () => {
    const current = readFileSync(secretFiles(dataDir).keyEncryption, 'utf8').trim();
    assert.equal(run([], { KEY_ENCRYPTION_SECRET: current }).status, 2);
    assert.match(run(['--new-secret-env', 'NEXT'], { KEY_ENCRYPTION_SECRET: current, NEXT: 'short' }).stderr, /at least 32/);
    const ok = run(['--new-secret-env', 'NEXT'], { KEY_ENCRYPTION_SECRET: current, NEXT: 'z'.repeat(40) });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /set KEY_ENCRYPTION_SECRET/);
    assert.equal(readFileSync(secretFiles(dataDir).keyEncryption, 'utf8').trim(), current, 'the file is left alone');
  });
});
