import { renameSync, writeFileSync } from 'node:fs';
import { loadServiceConfig } from '#service/config.ts';
import { profileSecret, resealProfiles } from '#service/profiles/open.ts';
import { ProfileSealer } from '#service/profiles/seal.ts';
import { newSecret, readRotateArgs, runRotateCommand } from './rotate-secret.ts';

const USAGE = `usage:
  npm run profiles:rotate-secret                          secret kept in DATA_DIR: generate a new one, seal every saved profile again, replace the file
  npm run profiles:rotate-secret -- --new-secret-env VAR  secret set in PROFILE_ENCRYPTION_SECRET (or CLUSTER_SECRET): seal again with the value of $VAR,
                                                          then set PROFILE_ENCRYPTION_SECRET to it on every node and restart them
Stop the service (every node) first. Profiles sealed with a secret in PROFILE_ENCRYPTION_SECRET_PREVIOUS are sealed again too.`;

async function main(argv: string[]): Promise<void> {
  const args = readRotateArgs(argv);
  if (args.help) return void console.log(USAGE);
  const config = loadServiceConfig();
  const current = profileSecret(config);
  const envName = args.newSecretEnv;
  const next = newSecret({
    newSecretEnv: envName,
    fromFile: Boolean(current.file),
    current: current.secret,
    setInEnvironment: 'the secret is set in the environment',
    env: process.env,
  });
  const count = await resealProfiles(config, new ProfileSealer(current.secret, config.profiles.previousSecrets), new ProfileSealer(next));
  if (current.file && !envName) {
    const tmp = `${current.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${next}\n`, { mode: 0o600 });
    renameSync(tmp, current.file);
    console.log(`sealed ${count} saved profile(s) again; the new secret is in ${current.file} (owner-only)`);
  } else {
    console.log(
      `sealed ${count} saved profile(s) again; now set PROFILE_ENCRYPTION_SECRET to the value of $${envName} on every node and restart them`,
    );
  }
}

runRotateCommand('profiles:rotate-secret', USAGE, main);
