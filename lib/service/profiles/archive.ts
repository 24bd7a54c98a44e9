import { constants } from 'node:fs';
import { lchown, lstat, mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A saved profile's contents (docs/decisions/0106-saved-profiles.md): the parts of a Chromium user
 * data folder that a site's login needs, packed into one buffer in a format of our own that can
 * hold only folders and regular files. Nothing in it can name a link, a device, a FIFO or an owner,
 * so unpacking it cannot make one; every path is checked again when it is unpacked, since a stored
 * profile is a tenant's data and is read as hostile.
 *
 *   "PPA1" then entries: 'D' u16 path-length path | 'F' u16 path-length path u64 size bytes; then 'E'.
 */
const MAGIC = Buffer.from('PPA1');
const DIR = 0x44;
const FILE = 0x46;
const END = 0x45;

/** Longest path of one entry (bytes), deepest folder, most entries: a hostile profile is bounded in every way. */
const MAX_PATH_BYTES = 1024;
const MAX_DEPTH = 32;
const MAX_ENTRIES = 200_000;

/**
 * What is kept of the user data folder: the cookies, local storage, IndexedDB, service workers and
 * their caches, file systems and preferences of the `Default` profile, and `Local State`. Not kept:
 * the HTTP, code, GPU and shader caches, crash reports, session restore, history, extensions.
 */
const KEPT_TOP = new Set(['Local State', 'Default']);
const KEPT_IN_DEFAULT = new Set([
  'Preferences',
  'Secure Preferences',
  'Cookies',
  'Cookies-journal',
  'Network',
  'Local Storage',
  'IndexedDB',
  'Service Worker',
  'WebStorage',
  'File System',
  'databases',
]);

/** Whether the path (its components from the profile folder down) is one a profile keeps. */
export function isKept(parts: readonly string[]): boolean {
  const [top, second] = parts;
  if (top === undefined || !KEPT_TOP.has(top)) return false;
  if (top === 'Local State') return parts.length === 1;
  return second === undefined || KEPT_IN_DEFAULT.has(second);
}

export class ProfileTooLarge extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`the profile holds more than its limit of ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
    this.name = 'ProfileTooLarge';
  }
}

export class BadProfileArchive extends Error {
  constructor(message: string) {
    super(`refused a saved profile: ${message}`);
    this.name = 'BadProfileArchive';
  }
}

export type PackResult = { data: Buffer; fileBytes: number; skipped: string[] };

/**
 * Pack what a profile keeps of `profileDir`, reading as whoever runs the service: no link is ever
 * followed, not even the profile folder itself (a tenant can put a link to another instance's
 * profile in its place). Each folder is opened with O_NOFOLLOW and read through its descriptor
 * (`/proc/self/fd/N/name`), so no path is walked again from the top; every entry is looked at
 * without following it (lstat), a link, FIFO, socket or device is left out, a file with more than
 * one name is left out (a hard link may be another file's), and a file is opened with O_NOFOLLOW
 * and checked to be the file looked at. The limit is counted while reading: past
 * `maxBytes` of packed data the packing stops with ProfileTooLarge, having read at most that much.
 * Call it only once nothing of the instance runs any more, so that nothing changes under it.
 */
export async function packProfile(profileDir: string, maxBytes: number): Promise<PackResult> {
  const chunks: Buffer[] = [MAGIC];
  let total = MAGIC.length;
  let fileBytes = 0;
  let entries = 0;
  const skipped: string[] = [];
  // Named in the log: the first hundred are enough to say what a tenant left.
  const skip = (rel: string) => void (skipped.length < 100 && skipped.push(rel));
  const push = (b: Buffer) => {
    total += b.length;
    if (total > maxBytes) throw new ProfileTooLarge(maxBytes);
    chunks.push(b);
  };
  const header = (type: number, path: string) => {
    const p = Buffer.from(path, 'utf8');
    const h = Buffer.alloc(3);
    h[0] = type;
    h.writeUInt16BE(p.length, 1);
    return Buffer.concat([h, p]);
  };

  const walk = async (path: string, parts: string[]): Promise<void> => {
    let handle;
    try {
      handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // None yet: a browser that never wrote one.
      if (code === 'ENOENT' && parts.length === 0) return;
      // A link (ELOOP), or what is no folder, in a folder's place: left out, never followed.
      if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') {
        if (parts.length === 0) throw new BadProfileArchive('the profile folder is not a folder');
        skip(parts.join('/'));
        return;
      }
      throw err;
    }
    try {
      await walkOpen(`/proc/self/fd/${handle.fd}`, parts);
    } finally {
      await handle.close();
    }
  };
  const walkOpen = async (dir: string, parts: string[]): Promise<void> => {
    const names = await readdir(dir);
    names.sort();
    for (const name of names) {
      const sub = [...parts, name];
      if (!isKept(sub)) continue;
      const rel = sub.join('/');
      // More entries than a profile may hold is as refused as more bytes: the save keeps the old one.
      if (++entries > MAX_ENTRIES) throw new ProfileTooLarge(maxBytes);
      if (Buffer.byteLength(rel) > MAX_PATH_BYTES || sub.length > MAX_DEPTH) {
        skip(rel);
        continue;
      }
      const full = join(dir, name);
      const st = await lstat(full);
      if (st.isDirectory()) {
        push(header(DIR, rel));
        await walk(full, sub);
      } else if (st.isFile() && st.nlink === 1) {
        await packFile(full, rel, st, push, header);
        fileBytes += st.size;
      } else {
        skip(rel);
      }
    }
  };
  await walk(profileDir, []);
  push(Buffer.from([END]));
  return { data: Buffer.concat(chunks, total), fileBytes, skipped };
}

async function packFile(
  full: string,
  rel: string,
  seen: { ino: number; dev: number; size: number },
  push: (b: Buffer) => void,
  header: (type: number, path: string) => Buffer,
): Promise<void> {
  // O_NONBLOCK: should a FIFO take the file's place after the lstat, opening it does not wait for a writer.
  const fh = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.ino !== seen.ino || st.dev !== seen.dev || st.nlink !== 1) return;
    const size = Buffer.alloc(8);
    size.writeBigUInt64BE(BigInt(st.size));
    push(Buffer.concat([header(FILE, rel), size]));
    // Read in pieces, each counted before the next is read: a file past the limit is not read whole.
    let left = st.size;
    while (left > 0) {
      const piece = Buffer.alloc(Math.min(left, 1 << 20));
      const { bytesRead } = await fh.read(piece, 0, piece.length, st.size - left);
      if (bytesRead === 0) break;
      push(bytesRead === piece.length ? piece : piece.subarray(0, bytesRead));
      left -= bytesRead;
    }
    // A file that shrank while read (it should not: nothing runs) is padded, so the sizes agree.
    if (left > 0) push(Buffer.alloc(left));
  } finally {
    await fh.close();
  }
}

/** A path of an archive entry split into components, or an error: relative, no `.`/`..`/empty parts, kept by a profile. */
export function checkEntryPath(path: string): string[] {
  if (path.length === 0 || path.includes('\0') || path.includes('\\'))
    throw new BadProfileArchive(`bad entry name ${JSON.stringify(path)}`);
  const parts = path.split('/');
  for (const p of parts)
    if (p === '' || p === '.' || p === '..') throw new BadProfileArchive(`entry ${JSON.stringify(path)} leaves its folder`);
  if (parts.length > MAX_DEPTH) throw new BadProfileArchive('entries nest too deep');
  if (!isKept(parts)) throw new BadProfileArchive(`entry ${JSON.stringify(path)} is not part of a profile`);
  return parts;
}

type Entry = { type: 'dir'; parts: string[] } | { type: 'file'; parts: string[]; at: number; size: number };

/**
 * The entries of an archive, each checked (checkEntryPath), a folder before what it holds, no name
 * twice, at most `maxBytes` of file contents; throws BadProfileArchive or ProfileTooLarge.
 */
function* readEntries(data: Buffer, maxBytes: number): Generator<Entry> {
  if (data.length < MAGIC.length + 1 || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw new BadProfileArchive('not a profile archive');
  const seen = new Set<string>();
  const folders = new Set<string>(['']);
  let at = MAGIC.length;
  let fileBytes = 0;
  const need = (n: number) => {
    if (at + n > data.length) throw new BadProfileArchive('the archive ends in the middle of an entry');
  };
  for (;;) {
    need(1);
    const type = data[at++];
    if (type === END) break;
    if (type !== DIR && type !== FILE) throw new BadProfileArchive('unknown entry type');
    if (seen.size >= MAX_ENTRIES) throw new BadProfileArchive('too many entries');
    need(2);
    const len = data.readUInt16BE(at);
    at += 2;
    if (len > MAX_PATH_BYTES) throw new BadProfileArchive('an entry name is too long');
    need(len);
    const path = data.toString('utf8', at, at + len);
    at += len;
    const parts = checkEntryPath(path);
    const key = parts.join('/');
    if (!folders.has(parts.slice(0, -1).join('/'))) throw new BadProfileArchive(`entry ${JSON.stringify(path)} comes before its folder`);
    if (seen.has(key)) throw new BadProfileArchive(`entry ${JSON.stringify(path)} is given twice`);
    seen.add(key);
    if (type === DIR) {
      folders.add(key);
      yield { type: 'dir', parts };
      continue;
    }
    need(8);
    const size = data.readBigUInt64BE(at);
    at += 8;
    if (size > BigInt(data.length - at)) throw new BadProfileArchive('the archive ends in the middle of a file');
    const n = Number(size);
    fileBytes += n;
    if (fileBytes > maxBytes) throw new ProfileTooLarge(maxBytes);
    yield { type: 'file', parts, at, size: n };
    at += n;
  }
  if (at !== data.length) throw new BadProfileArchive('bytes after the end of the archive');
}

/** Check a whole archive without writing anything (before a browser is started from it). */
export function checkArchive(data: Buffer, maxBytes: number): void {
  for (const _ of readEntries(data, maxBytes));
}

/** How many files of a profile are written at once: enough to keep the disk and the thread pool busy, few enough to leave both to others. */
const WRITERS = 8;

/**
 * Unpack `data` into `profileDir`, which must not exist yet: it is made here, so every folder on
 * the way to an entry was made by this call, and nothing else can have put a link there. Each
 * entry is checked (readEntries); a file is created exclusively and without following links
 * (O_EXCL, O_NOFOLLOW). Everything made is given to `owner` (the instance's uid; null: left to
 * the service's own). Every folder is made first, in the archive's order (a folder before what it
 * holds), then the files are written, WRITERS at a time. A refused archive leaves what was
 * unpacked so far, for the caller to remove with the instance's folders. Returns the bytes of file
 * contents written.
 */
export async function unpackProfile(data: Buffer, profileDir: string, owner: number | null, maxBytes: number): Promise<number> {
  const entries = [...readEntries(data, maxBytes)];
  await mkdir(profileDir, { mode: 0o700 });
  if (owner !== null) await lchown(profileDir, owner, owner);
  const files: Extract<Entry, { type: 'file' }>[] = [];
  for (const entry of entries) {
    if (entry.type === 'file') {
      files.push(entry);
      continue;
    }
    const full = join(profileDir, ...entry.parts);
    await mkdir(full, { mode: 0o700 });
    if (owner !== null) await lchown(full, owner, owner);
  }
  let next = 0;
  let failed = false;
  const writer = async () => {
    for (let entry = files[next++]; entry && !failed; entry = files[next++]) {
      try {
        await writeEntry(data, join(profileDir, ...entry.parts), entry, owner);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  // Every writer has stopped before a failure is thrown: nothing is still being written as the caller removes the folder.
  const settled = await Promise.allSettled(Array.from({ length: Math.min(WRITERS, files.length) }, writer));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
  return files.reduce((sum, f) => sum + f.size, 0);
}

async function writeEntry(data: Buffer, full: string, entry: { at: number; size: number }, owner: number | null): Promise<void> {
  const fh = await open(full, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    if (entry.size > 0) await fh.write(data, entry.at, entry.size, 0);
    if (owner !== null) await fh.chown(owner, owner);
  } finally {
    await fh.close();
  }
}
