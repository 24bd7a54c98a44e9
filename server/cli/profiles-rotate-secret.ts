import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadServiceConfig } from '#service/config.ts';
import { profileSecret, resealProfiles } from '#service/profiles/open.ts';
import { ProfileSealer } from '#service/profiles/seal.ts';
import { ConfigError } from '#shared/config-schema.ts';

const USAGE = `usage:
  npm run profiles:rotate-secret                          secret kept in DATA_DIR: generate a new one, seal every saved profile again, replace the file
  npm run profiles:rotate-secret -- --new-secret-env VAR  secret set in PROFILE_ENCRYPTION_SECRET (or CLUSTER_SECRET): seal again with the value of $VAR,
                                                          then set PROFILE_ENCRYPTION_SECRET to it on every node and restart them
Stop the service (every node) first. Profiles sealed with a secret in PROFILE_ENCRYPTION_SECRET_PREVIOUS are sealed again too.`;

function fail(message: string): never {
  console.error(`profiles:rotate-secret: ${message}\n${USAGE}`);
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
  const config = loadServiceConfig();
  const current = profileSecret(config);
  const envName = values['new-secret-env'];
  if (!current.file && !envName) fail('the secret is set in the environment: pass --new-secret-env VAR with the new secret in $VAR');
  const next = (envName ? process.env[envName] : randomBytes(32).toString('base64url'))?.trim();
  if (!next || next.length < 32) fail(`${envName} must hold a secret of at least 32 characters`);
  if (next === current.secret) fail('the new secret is the same as the current one');
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

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`profiles:rotate-secret: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
