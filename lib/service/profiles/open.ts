import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ServiceConfig } from '../config.ts';
import type { RedisClient } from '#shared/redis.ts';
import { MemoryProfileLocks, RedisProfileLocks } from './locks.ts';
import { Profiles } from './profiles.ts';
import { ProfileSealer } from './seal.ts';
import { ProfileFolder } from './store.ts';

/**
 * The saved profiles as configured: their folder, their seal (PROFILE_ENCRYPTION_SECRET; else
 * CLUSTER_SECRET on several nodes, or on one node alone a secret generated into DATA_DIR/secrets),
 * and their locks (in Redis with several nodes).
 */
export async function openProfiles(
  config: ServiceConfig,
  o: {
    redis: RedisClient | null;
    nodeId: string;
    log: Logger;
    onSaved?: ConstructorParameters<typeof Profiles>[0]['onSaved'];
    onChanged?: ConstructorParameters<typeof Profiles>[0]['onChanged'];
  },
): Promise<Profiles> {
  const folder = new ProfileFolder(config.profiles.dir);
  await folder.init();
  const { secret, file, created } = profileSecret(config);
  if (created)
    o.log.warn(
      { file },
      'generated a secret for saved browser profiles; set PROFILE_ENCRYPTION_SECRET in production and keep it out of DATA_DIR',
    );
  return new Profiles({
    folder,
    sealer: new ProfileSealer(secret, config.profiles.previousSecrets),
    locks: o.redis ? new RedisProfileLocks(o.redis, o.nodeId) : new MemoryProfileLocks(),
    maxBytes: config.profiles.maxBytes,
    concurrency: config.profiles.concurrency,
    // A restore waits for its turn no longer than a launch may take.
    waitMs: config.browser.launchTimeoutMs,
    log: o.log,
    onSaved: o.onSaved,
    onChanged: o.onChanged,
  });
}

/** Where the generated secret is kept when none is configured. */
export const profileSecretFile = (dataDir: string): string => join(dataDir, 'secrets', 'profile-encryption.secret');

/**
 * The secret profiles are sealed with: PROFILE_ENCRYPTION_SECRET; else CLUSTER_SECRET on several
 * nodes (the seal's key is derived for profiles alone, with its own HKDF label, so no key is
 * shared); else one generated into DATA_DIR/secrets (`file`, `created` the first time).
 */
export function profileSecret(config: ServiceConfig): { secret: string; file: string | null; created: boolean } {
  const configured = config.profiles.secret ?? config.cluster?.secret;
  if (configured) return { secret: configured, file: null, created: false };
  const file = profileSecretFile(config.dataDir);
  return { ...loadOrCreateSecret(file), file };
}

/**
 * Seal every stored profile again with `next` (those `from` opens; the rotation of
 * PROFILE_ENCRYPTION_SECRET). Run with the service stopped. Returns how many were sealed again;
 * a profile that does not open stops it with an error, the ones done so far sealed with `next`
 * (the rotation is run again with the old secret in PROFILE_ENCRYPTION_SECRET_PREVIOUS).
 */
export async function resealProfiles(config: ServiceConfig, from: ProfileSealer, next: ProfileSealer): Promise<number> {
  return new ProfileFolder(config.profiles.dir).resealAll((sealed, owner, name) =>
    next.isCurrent(sealed) ? null : next.seal(from.open(sealed, owner, name), owner, name),
  );
}

/** Read a secret from `file`, or create it (256 random bits, owner-only, exclusively so two processes agree on one). */
function loadOrCreateSecret(file: string): { secret: string; created: boolean } {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  let created = false;
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  chmodSync(file, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return { secret, created };
}
