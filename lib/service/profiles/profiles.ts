import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { DomainError, NotFound } from '#shared/errors.ts';
import { checkArchive, packProfile, ProfileTooLarge, unpackProfile } from './archive.ts';
import type { ProfileLocks } from './locks.ts';
import { ProfileSealer } from './seal.ts';
import { ProfileFolder } from './store.ts';

/** One browser's use of a saved profile, from its /start to its end (docs/decisions/0106-saved-profiles.md). */
export type ProfileUse = {
  readonly name: string;
  readonly persist: boolean;
  /** Before Chromium starts: the saved state into `profileDir` (which must not exist), owned by `owner`. */
  restore(profileDir: string, owner: number | null): Promise<void>;
  /**
   * Once the browser has ended and nothing of it runs: save what `profileDir` holds (when
   * persisting), then let the profile go. Never throws; a refused or failed save keeps the old state.
   */
  finish(profileDir: string): Promise<void>;
  /** Let the profile go without saving (the start failed before a browser had it). */
  release(): Promise<void>;
};

export type ProfileSummary = { name: string; bytes: number; updatedAt: Date; inUse: boolean };

export type ProfilesOptions = {
  folder: ProfileFolder;
  sealer: ProfileSealer;
  locks: ProfileLocks;
  /** BROWSER_PROFILE_MAX_MB: what one profile may hold, counted while it is saved. */
  maxBytes: number;
  log: Logger;
  /** A save ended: saved, refused (past the limit) or failed. */
  onSaved?: (outcome: 'saved' | 'too-large' | 'failed') => void;
};

const inUse = (name: string) =>
  new DomainError('conflict', `the profile ${name} is in use by a browser that saves into it; start with persist=0, or wait until it ends`);

/** Saved browser profiles of every key: restored into a starting browser, saved from an ending one. */
export class Profiles {
  readonly #o: ProfilesOptions;

  constructor(o: ProfilesOptions) {
    this.#o = o;
  }

  get maxBytes(): number {
    return this.#o.maxBytes;
  }

  /**
   * Take up `name` of `keyId` for a browser about to start: its saved state read and opened now
   * (none yet: the browser starts empty), and with `persist`, the profile held for this browser
   * alone (409 when another persisting browser holds it).
   */
  async use(keyId: string, name: string, persist: boolean): Promise<ProfileUse> {
    const { folder, sealer, locks, maxBytes, log } = this.#o;
    const holder = randomBytes(12).toString('base64url');
    if (persist && !(await locks.claim(keyId, name, holder))) throw inUse(name);
    let released = false;
    const release = async () => {
      if (released || !persist) return;
      released = true;
      await locks.release(keyId, name, holder).catch((err: Error) => log.error({ err, profile: name }, 'could not let a profile go'));
    };
    let plain: Buffer | null;
    try {
      const sealed = await folder.read(keyId, name, maxBytes + ProfileSealer.overhead);
      plain = sealed && sealer.open(sealed, ProfileFolder.ownerTag(keyId), name);
      // Checked whole before anything starts, so that a bad one is a clear refusal, not a failed launch.
      if (plain) checkArchive(plain, maxBytes);
    } catch (err) {
      await release();
      log.error({ err, profile: name, keyId }, 'a saved profile cannot be read');
      throw new DomainError('internal', `the saved profile ${name} cannot be read; delete it to start afresh`);
    }
    return {
      name,
      persist,
      restore: async (profileDir, owner) => {
        if (plain) await unpackProfile(plain, profileDir, owner, maxBytes);
      },
      finish: async (profileDir) => {
        try {
          if (persist) await this.#save(keyId, name, profileDir);
        } finally {
          await release();
        }
      },
      release,
    };
  }

  /**
   * Save a live browser that was started without persisting into `name` as it ends (the portal's
   * "Stop and save as profile"): the profile held for it from now on (409 when another persisting
   * browser holds it, or when this browser already saves into a profile of its own).
   */
  async saveOnEnd(
    browser: { readonly keepsProfile: boolean; keepProfileOnEnd(keep: (profileDir: string) => Promise<void>): void },
    keyId: string,
    name: string,
  ): Promise<void> {
    if (browser.keepsProfile)
      throw new DomainError('conflict', 'this browser already saves into the profile it was started with; stop it without saveAs');
    const holder = randomBytes(12).toString('base64url');
    if (!(await this.#o.locks.claim(keyId, name, holder))) throw inUse(name);
    browser.keepProfileOnEnd(async (profileDir) => {
      try {
        await this.#save(keyId, name, profileDir);
      } finally {
        await this.#o.locks
          .release(keyId, name, holder)
          .catch((err: Error) => this.#o.log.error({ err, profile: name }, 'could not let a profile go'));
      }
    });
  }

  async #save(keyId: string, name: string, profileDir: string): Promise<void> {
    const { folder, sealer, maxBytes, log, onSaved } = this.#o;
    const t0 = performance.now();
    try {
      const packed = await packProfile(profileDir, maxBytes);
      await folder.write(keyId, name, sealer.seal(packed.data, ProfileFolder.ownerTag(keyId), name));
      if (packed.skipped.length)
        log.warn({ profile: name, keyId, skipped: packed.skipped.slice(0, 20) }, 'left entries out of a saved profile');
      log.info({ profile: name, keyId, bytes: packed.data.length, ms: Math.round(performance.now() - t0) }, 'profile saved');
      onSaved?.('saved');
    } catch (err) {
      if (err instanceof ProfileTooLarge) {
        log.warn({ profile: name, keyId, limitBytes: maxBytes }, 'profile not saved: past BROWSER_PROFILE_MAX_MB; the saved one is kept');
        onSaved?.('too-large');
      } else {
        log.error({ err, profile: name, keyId }, 'profile not saved; the saved one is kept');
        onSaved?.('failed');
      }
    }
  }

  /** A key's profiles, by name. */
  async list(keyId: string): Promise<ProfileSummary[]> {
    const stored = await this.#o.folder.list(keyId);
    const held = await this.#o.locks.held(
      keyId,
      stored.map((p) => p.name),
    );
    return stored.map((p) => ({ ...p, inUse: held.has(p.name) }));
  }

  /** Delete a key's profile: 404 when it has none of that name, 409 while a persisting browser holds it. */
  async remove(keyId: string, name: string): Promise<void> {
    if ((await this.#o.locks.held(keyId, [name])).has(name)) throw inUse(name);
    if (!(await this.#o.folder.remove(keyId, name))) throw new NotFound(`no saved profile ${name} for this API key`);
  }
}
