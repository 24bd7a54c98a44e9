import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { DomainError, NotFound, ServiceUnavailable } from '#shared/errors.ts';
import { checkArchive, packProfile, ProfileTooLarge, unpackProfile } from './archive.ts';
import type { ProfileLocks } from './locks.ts';
import { ProfileSealer } from './seal.ts';
import { ProfileFolder } from './store.ts';
import { WorkSlots } from './work-slots.ts';

/** One browser's use of a saved profile, from its /start to its end (docs/decisions/0106-saved-profiles.md). */
export type ProfileUse = {
  readonly name: string;
  readonly persist: boolean;
  /** Which profile of which key: what a browser started ahead from it is kept under (warm-profiles.ts). */
  readonly id: string;
  /** The version stored when the use began (store.ts versionOf()); null when none is: the browser starts empty. */
  readonly version: string | null;
  /**
   * Before Chromium starts (after the start has its room): the saved state read, opened, checked
   * and written into `profileDir` (which must not exist), owned by `owner`, in a turn of the
   * service's profile work; resolves to the version written (null: none was stored). A profile
   * that cannot be read is a DomainError naming it (500). It may be called again for another
   * browser (a warm one started ahead).
   */
  restore(profileDir: string, owner: number | null): Promise<string | null>;
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
  /** BROWSER_PROFILE_CONCURRENCY: how many restores and saves may run at once on this node. */
  concurrency: number;
  /** How long a restore may wait for its turn before its start is refused (503): the launch's timeout. */
  waitMs: number;
  log: Logger;
  /** A save ended: saved, refused (past the limit) or failed. */
  onSaved?: (outcome: 'saved' | 'too-large' | 'failed') => void;
  /** A profile was stored anew (saved) or removed on this node: what was started from it ahead is stale. */
  onChanged?: (keyId: string, name: string, change: 'saved' | 'removed') => void;
};

/** What a key's profile is kept under in memory (ProfileUse `id`). */
export const profileId = (keyId: string, name: string): string => `${keyId}\0${name}`;

const unreadable = (name: string) => new DomainError('internal', `the saved profile ${name} cannot be read; delete it to start afresh`);

/** A browser saves into one profile as it ends: the one it was started with, or the first saveAs. */
const alreadySaves = () =>
  new DomainError(
    'conflict',
    'this browser already saves into a profile as it ends (the one it was started with, or an earlier saveAs); stop it without saveAs',
  );

const inUse = (name: string) =>
  new DomainError('conflict', `the profile ${name} is in use by a browser that saves into it; start with persist=0, or wait until it ends`);

/** Saved browser profiles of every key: restored into a starting browser, saved from an ending one. */
export class Profiles {
  readonly #o: ProfilesOptions;
  /** Every read and restore, and every save, takes a turn here: what they hold in memory is bounded by it. */
  readonly #work: WorkSlots;

  constructor(o: ProfilesOptions) {
    this.#o = o;
    this.#work = new WorkSlots(o.concurrency);
  }

  /** Restores and saves running now, and waiting for their turn. */
  get work(): { running: number; waiting: number } {
    return { running: this.#work.running, waiting: this.#work.waiting };
  }

  get maxBytes(): number {
    return this.#o.maxBytes;
  }

  /**
   * Take up `name` of `keyId` for a browser about to start, with only cheap checks now: with
   * `persist`, the profile held for this browser alone (409 when another persisting browser holds
   * it), and the stored file looked at, not read (500 when it is not one or is past the limit;
   * none yet: the browser starts empty). Its bytes are read only by `restore`, once the start has
   * its room, so that a start waiting in the queue holds none of them. `signal` (the client went
   * away) takes a restore that waits for its turn out of the line.
   */
  async use(keyId: string, name: string, persist: boolean, { signal }: { signal?: AbortSignal } = {}): Promise<ProfileUse> {
    const { folder, sealer, locks, maxBytes, log } = this.#o;
    const holder = randomBytes(12).toString('base64url');
    if (persist && !(await locks.claim(keyId, name, holder))) throw inUse(name);
    let released = false;
    const release = async () => {
      if (released || !persist) return;
      released = true;
      await locks.release(keyId, name, holder).catch((err: Error) => log.error({ err, profile: name }, 'could not let a profile go'));
    };
    let version: string | null;
    try {
      version = await folder.version(keyId, name, maxBytes + ProfileSealer.overhead);
    } catch (err) {
      await release();
      log.error({ err, profile: name, keyId }, 'a saved profile cannot be read');
      throw unreadable(name);
    }
    return {
      name,
      persist,
      id: profileId(keyId, name),
      version,
      restore: (profileDir, owner) =>
        this.#turn(signal, async () => {
          const t0 = performance.now();
          let plain: Buffer | null;
          let restored: string | null;
          try {
            const sealed = await folder.read(keyId, name, maxBytes + ProfileSealer.overhead);
            // Seen as stored a moment ago and gone now: deleted while the start waited, not a new profile.
            if (!sealed && version !== null) throw new Error('the stored profile was removed before the browser started');
            restored = sealed && ProfileFolder.versionOf(sealed);
            plain = sealed && sealer.open(sealed, ProfileFolder.ownerTag(keyId), name);
            // Checked whole before anything is written, so that a bad one is a clear refusal, not a failed launch.
            if (plain) checkArchive(plain, maxBytes);
          } catch (err) {
            log.error({ err, profile: name, keyId }, 'a saved profile cannot be read');
            throw unreadable(name);
          }
          if (plain) await unpackProfile(plain, profileDir, owner, maxBytes);
          log.info({ profile: name, keyId, bytes: plain?.length ?? 0, ms: Math.round(performance.now() - t0) }, 'profile restored');
          return restored;
        }),
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
   * Run a restore in its turn of the profile work. A restore that waits longer than `waitMs` (the
   * launch's timeout) is refused with a 503; one whose client went away (`signal`) leaves the line.
   */
  async #turn<T>(signal: AbortSignal | undefined, restore: () => Promise<T>): Promise<T> {
    const late = AbortSignal.timeout(this.#o.waitMs);
    try {
      return await this.#work.run(restore, signal ? AbortSignal.any([signal, late]) : late);
    } catch (err) {
      if (late.aborted && !signal?.aborted && err === late.reason)
        throw new ServiceUnavailable('the service is busy restoring and saving other saved profiles; try again shortly', 5);
      throw err;
    }
  }

  /**
   * Save a live browser that was started without persisting into `name` as it ends (the portal's
   * "Stop and save as profile"): the profile held for it from now on (409 when another persisting
   * browser holds it, or when this browser already saves into a profile of its own). Whether the
   * browser takes the save is decided with its teardown's state, after the lock is claimed: one
   * that began to end meanwhile (its client closed) takes none, a 404 as for any browser no longer
   * live; one given another save meanwhile (a second saveAs at the same moment), a 409. Either way
   * the lock is let go at once.
   */
  async saveOnEnd(
    browser: {
      readonly keepsProfile: boolean;
      keepProfileOnEnd(keep: (profileDir: string) => Promise<void>): 'kept' | 'ending' | 'kept-already';
    },
    keyId: string,
    name: string,
  ): Promise<void> {
    if (browser.keepsProfile) throw alreadySaves();
    const holder = randomBytes(12).toString('base64url');
    if (!(await this.#o.locks.claim(keyId, name, holder))) throw inUse(name);
    const release = () =>
      this.#o.locks
        .release(keyId, name, holder)
        .catch((err: Error) => this.#o.log.error({ err, profile: name }, 'could not let a profile go'));
    const accepted = browser.keepProfileOnEnd(async (profileDir) => {
      try {
        await this.#save(keyId, name, profileDir);
      } finally {
        await release();
      }
    });
    if (accepted === 'kept') return;
    await release();
    if (accepted === 'ending')
      throw new NotFound('no live browser with that X-Browser-ID for this API key: it is already ending, and was not saved');
    throw alreadySaves();
  }

  async #save(keyId: string, name: string, profileDir: string): Promise<void> {
    const { folder, sealer, maxBytes, log, onSaved } = this.#o;
    const t0 = performance.now();
    try {
      // In its turn, however long that takes: a save is never given up for waiting (the browser has ended already).
      const packed = await this.#work.run(async () => {
        const p = await packProfile(profileDir, maxBytes);
        await folder.write(keyId, name, sealer.seal(p.data, ProfileFolder.ownerTag(keyId), name));
        return { skipped: p.skipped, bytes: p.data.length };
      });
      if (packed.skipped.length)
        log.warn({ profile: name, keyId, skipped: packed.skipped.slice(0, 20) }, 'left entries out of a saved profile');
      log.info({ profile: name, keyId, bytes: packed.bytes, ms: Math.round(performance.now() - t0) }, 'profile saved');
      onSaved?.('saved');
      this.#o.onChanged?.(keyId, name, 'saved');
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
    this.#o.onChanged?.(keyId, name, 'removed');
  }
}
