import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError } from '#shared/config-schema.ts';

/**
 * What the two rotate-secret commands (portal:rotate-secret and profiles:rotate-secret) have in
 * common: their arguments, the rules for the new secret, and how they end on an error. Each
 * command keeps its own usage text, its own secret and its own words for where the secret is set.
 */

/** A mistake of the operator's: the command prints it with its usage and ends with status 2. */
export class UsageError extends Error {}

/** The arguments both commands take: `--new-secret-env VAR` and `--help`. */
export type RotateArgs = { help: boolean; newSecretEnv: string | undefined };

export function readRotateArgs(argv: string[]): RotateArgs {
  try {
    const { values } = parseArgs({ args: argv, options: { 'new-secret-env': { type: 'string' }, help: { type: 'boolean' } } });
    return { help: values.help === true, newSecretEnv: values['new-secret-env'] };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * The secret to rotate to, trimmed. A secret kept in a file of DATA_DIR is replaced by a generated
 * one unless `--new-secret-env` names another; a secret set in the environment needs the new one
 * named, since only the operator can set it where the old one is set. The new secret must hold at
 * least 32 characters and differ from the current one.
 */
export function newSecret(o: {
  newSecretEnv: string | undefined;
  /** Whether the current secret is kept in a file of DATA_DIR (rather than set in the environment). */
  fromFile: boolean;
  current: string;
  /** The command's words for a secret set in the environment, which begin its refusal. */
  setInEnvironment: string;
  env: Record<string, string | undefined>;
  generate?: () => string;
}): string {
  const { newSecretEnv: envName } = o;
  if (!o.fromFile && !envName) throw new UsageError(`${o.setInEnvironment}: pass --new-secret-env VAR with the new secret in $VAR`);
  const next = (envName ? o.env[envName] : (o.generate ?? (() => randomBytes(32).toString('base64url')))())?.trim();
  if (!next || next.length < 32) throw new UsageError(`${envName} must hold a secret of at least 32 characters`);
  if (next === o.current) throw new UsageError('the new secret is the same as the current one');
  return next;
}

/**
 * Run a rotate-secret command's `main` on the process's arguments. A UsageError is printed with
 * the usage and ends with status 2, as does a configuration error (without the usage); any other
 * failure ends with status 1. Every message begins with the command's name.
 */
export function runRotateCommand(name: string, usage: string, main: (argv: string[]) => Promise<void>): void {
  main(process.argv.slice(2)).catch((err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${name}: ${err.message}\n${usage}`);
      process.exit(2);
    }
    console.error(`${name}: ${(err as Error).message}`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
}
