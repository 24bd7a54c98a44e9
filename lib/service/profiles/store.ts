import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export type StoredProfile = { name: string; bytes: number; updatedAt: Date };

/** The first bytes of a sealed profile, which tell its versions apart (versionOf()). */
const VERSION_BYTES = 32;

/**
 * Where sealed profiles are kept: a folder every service node sees (BROWSER_PROFILES_DIR, by default
 * DATA_DIR/profiles; decision 0106), one subfolder per API key named after a hash of its id, one
 * file per profile, `p-<name>`. A new state is written beside the old one, flushed to disk, then
 * renamed over it: a reader on any node sees the old profile or the new one, never a part.
 */
export class ProfileFolder {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  async init(): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
  }

  /** The name a key's profiles are kept under: a hash of its id, also bound into each profile's seal. */
  static ownerTag(keyId: string): string {
    return createHash('sha256').update(keyId).digest('hex').slice(0, 32);
  }

  #keyDir(keyId: string): string {
    return join(this.#dir, ProfileFolder.ownerTag(keyId));
  }

  #file(keyId: string, name: string): string {
    return join(this.#keyDir(keyId), `p-${name}`);
  }

  /**
   * Which version of a sealed profile is stored, looked at without reading it (versionOf() of its
   * first bytes): null when there is none; throws when what is stored is not a file or is past
   * `maxBytes`.
   */
  async version(keyId: string, name: string, maxBytes: number): Promise<string | null> {
    let fh;
    try {
      fh = await open(this.#file(keyId, name), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new Error('a stored profile is not a file');
      if (st.size > maxBytes) throw new Error(`a stored profile of ${st.size} bytes is past the limit of ${maxBytes}`);
      const head = Buffer.alloc(VERSION_BYTES);
      const { bytesRead } = await fh.read(head, 0, VERSION_BYTES, 0);
      return ProfileFolder.versionOf(head.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  }

  /** What tells one stored version of a profile from every other: its first bytes, which hold the
   * seal's random nonce (seal.ts), new at every save. */
  static versionOf(sealed: Buffer): string {
    return sealed.subarray(0, VERSION_BYTES).toString('hex');
  }

  /** The sealed profile, or null when there is none; refused past `maxBytes` without reading it. */
  async read(keyId: string, name: string, maxBytes: number): Promise<Buffer | null> {
    let fh;
    try {
      fh = await open(this.#file(keyId, name), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new Error('a stored profile is not a file');
      if (st.size > maxBytes) throw new Error(`a stored profile of ${st.size} bytes is past the limit of ${maxBytes}`);
      return await readWhole(fh, st.size);
    } finally {
      await fh.close();
    }
  }

  /** Replace the profile with `sealed` once it is wholly on disk. */
  async write(keyId: string, name: string, sealed: Buffer): Promise<void> {
    await this.#writeAt(this.#keyDir(keyId), `p-${name}`, sealed);
  }

  async #writeAt(dir: string, file: string, sealed: Buffer): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        await fh.writeFile(sealed);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, join(dir, file));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const d = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await d.sync().finally(() => d.close());
  }

  async list(keyId: string): Promise<StoredProfile[]> {
    let names: string[];
    try {
      names = await readdir(this.#keyDir(keyId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: StoredProfile[] = [];
    for (const file of names.filter((n) => n.startsWith('p-')).sort()) {
      const st = await stat(join(this.#keyDir(keyId), file)).catch(() => null);
      if (st?.isFile()) out.push({ name: file.slice(2), bytes: st.size, updatedAt: st.mtime });
    }
    return out;
  }

  /**
   * Every stored profile, for the rotation of the secret: `reseal` gets each one's sealed bytes,
   * its owner's tag and its name, and returns new bytes (written in its place) or null (kept).
   */
  async resealAll(reseal: (sealed: Buffer, ownerTag: string, name: string) => Buffer | null): Promise<number> {
    let count = 0;
    for (const tag of (await readdir(this.#dir).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{32}$/.test(n)).sort()) {
      const dir = join(this.#dir, tag);
      for (const file of (await readdir(dir)).filter((n) => n.startsWith('p-')).sort()) {
        const fh = await open(join(dir, file), constants.O_RDONLY | constants.O_NOFOLLOW);
        const sealed = await fh.readFile().finally(() => fh.close());
        const next = reseal(sealed, tag, file.slice(2));
        if (!next) continue;
        await this.#writeAt(dir, file, next);
        count++;
      }
    }
    return count;
  }

  /** True when there was one to remove. */
  async remove(keyId: string, name: string): Promise<boolean> {
    try {
      await rm(this.#file(keyId, name));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }
}

/** Largest single read of a stored profile: few trips through the thread pool, none of them holding a thread for long. */
const READ_CHUNK = 16 * 1024 * 1024;

/**
 * The whole of an open file of `size` bytes, read into one buffer of that size READ_CHUNK at a
 * time (readFile reads 512 KiB at a time, a trip through the thread pool each). A file
 * that changed size meanwhile is refused: a profile is replaced by rename, never written in place.
 */
async function readWhole(fh: FileHandle, size: number): Promise<Buffer> {
  const data = Buffer.allocUnsafe(size);
  let at = 0;
  while (at < size) {
    const { bytesRead } = await fh.read(data, at, Math.min(READ_CHUNK, size - at), at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  if (at !== size || (await fh.read(Buffer.alloc(1), 0, 1, size)).bytesRead !== 0)
    throw new Error('a stored profile changed size while it was read');
  return data;
}
