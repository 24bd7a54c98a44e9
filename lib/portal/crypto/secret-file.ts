import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Read a secret from `file`, or create it with 256 random bits. The folder is made 0700 and the
 * file 0600 (owner only), created exclusively so two processes starting together agree on one.
 */
export function loadOrCreateSecret(file: string): { secret: string; created: boolean } {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
    return { secret: readSecret(file), created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) chmodSync(file, 0o600);
  return { secret: readSecret(file), created: false };
}

function readSecret(file: string): string {
  const text = readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return text;
}

/** Replace the secret in `file` (used by the rotation command), keeping owner-only permissions. */
export function writeSecret(file: string, secret: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${secret}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  // rename is atomic: a reader sees the old secret or the new one, never half of one.
  renameSync(tmp, file);
}
