import { loadPortalConfig } from '#portal/config.ts';
import { writeSecret } from '#portal/crypto/secret-file.ts';
import { SecretBox } from '#portal/crypto/secretbox.ts';
import { openPortalData } from '#portal/data/open.ts';
import { resolvePortalSecrets, secretFiles } from '#portal/keys/secrets.ts';
import { resealAll } from '#portal/keys/vault.ts';
import { newSecret, readRotateArgs, runRotateCommand } from './rotate-secret.ts';

const USAGE = `usage:
  npm run portal:rotate-secret                          secret kept in DATA_DIR: generate a new one, re-encrypt, replace the file
  npm run portal:rotate-secret -- --new-secret-env VAR  secret set in KEY_ENCRYPTION_SECRET: re-encrypt with the value of $VAR,
                                                        then set KEY_ENCRYPTION_SECRET to it and restart the portal
Stop the portal first; it reads the secret at start.`;

async function main(argv: string[]): Promise<void> {
  const args = readRotateArgs(argv);
  if (args.help) return void console.log(USAGE);
  const config = loadPortalConfig();
  const current = resolvePortalSecrets(config);
  const envName = args.newSecretEnv;
  const next = newSecret({
    newSecretEnv: envName,
    fromFile: current.keyEncryptionFromFile,
    current: current.keyEncryptionSecret,
    setInEnvironment: 'KEY_ENCRYPTION_SECRET is set in the environment',
    env: process.env,
  });

  const from = new SecretBox(current.keyEncryptionSecret, config.previousKeyEncryptionSecrets);
  const to = new SecretBox(next);
  const data = await openPortalData(config);
  try {
    // All rows or none: a key that fails to open (wrong secret, tampering) aborts the rotation.
    const count = await resealAll(data, from, to);
    if (current.keyEncryptionFromFile && !envName) {
      writeSecret(secretFiles(config.dataDir).keyEncryption, next);
      console.log(`re-encrypted ${count} key(s); the new secret is in ${secretFiles(config.dataDir).keyEncryption} (owner-only)`);
    } else {
      console.log(`re-encrypted ${count} key(s); now set KEY_ENCRYPTION_SECRET to the value of $${envName} and restart the portal`);
    }
  } finally {
    await data.close();
  }
}

runRotateCommand('portal:rotate-secret', USAGE, main);
