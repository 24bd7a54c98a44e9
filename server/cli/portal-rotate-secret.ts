import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadPortalConfig } from '#portal/config.ts';
import { ConfigError } from '#shared/config-schema.ts';
import { writeSecret } from '#portal/crypto/secret-file.ts';
import { SecretBox } from '#portal/crypto/secretbox.ts';
import { openPortalData } from '#portal/data/open.ts';
import { resolvePortalSecrets, secretFiles } from '#portal/keys/secrets.ts';
import { resealAll } from '#portal/keys/vault.ts';

const USAGE = `usage:
  npm run portal:rotate-secret                          secret kept in DATA_DIR: generate a new one, re-encrypt, replace the file
  npm run portal:rotate-secret -- --new-secret-env VAR  secret set in KEY_ENCRYPTION_SECRET: re-encrypt with the value of $VAR,
                                                        then set KEY_ENCRYPTION_SECRET to it and restart the portal
Stop the portal first; it reads the secret at start.`;

function fail(message: string): never {
  console.error(`portal:rotate-secret: ${message}\n${USAGE}`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { 'new-secret-env': { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) return void console.log(USAGE);
  const config = loadPortalConfig();
  const current = resolvePortalSecrets(config);
  const envName = values['new-secret-env'];
  if (!current.keyEncryptionFromFile && !envName)
    fail('KEY_ENCRYPTION_SECRET is set in the environment: pass --new-secret-env VAR with the new secret in $VAR');
  const next = envName ? process.env[envName] : randomBytes(32).toString('base64url');
  if (!next || next.trim().length < 32) fail(`${envName} must hold a secret of at least 32 characters`);
  if (next.trim() === current.keyEncryptionSecret) fail('the new secret is the same as the current one');

  const from = new SecretBox(current.keyEncryptionSecret, config.previousKeyEncryptionSecrets);
  const to = new SecretBox(next.trim());
  const data = await openPortalData(config);
  try {
    // All rows or none: a key that fails to open (wrong secret, tampering) aborts the rotation.
    const count = await resealAll(data, from, to);
    if (current.keyEncryptionFromFile && !envName) {
      writeSecret(secretFiles(config.dataDir).keyEncryption, next.trim());
      console.log(`re-encrypted ${count} key(s); the new secret is in ${secretFiles(config.dataDir).keyEncryption} (owner-only)`);
    } else {
      console.log(`re-encrypted ${count} key(s); now set KEY_ENCRYPTION_SECRET to the value of $${envName} and restart the portal`);
    }
  } finally {
    await data.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`portal:rotate-secret: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
