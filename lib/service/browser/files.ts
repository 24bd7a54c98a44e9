import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BadRequest, NotFound, PayloadTooLarge, DomainError } from '#shared/errors.ts';
import type { InstanceFolders as PolicyFolders } from './cdp-policy.ts';
import type { InstanceFolders } from './instance-folders.ts';

/**
 * The files of one instance, as the files API serves them (docs/api.md, "Files"): uploads the client
 * puts for `<input type=file>` and the downloads Chromium saved. The uploads host folder belongs to
 * the service (the sandbox mounts it read-only), so only this module writes it; the downloads
 * folder belongs to the instance's uid, whose tenant may have put anything there (symlinks, FIFOs,
 * files that change while read), so nothing in it is trusted.
 */
export type InstanceFiles = {
  /** Host paths. */
  folders: Pick<InstanceFolders, 'uploads' | 'downloads'>;
  /** The same folders as Chromium sees them (the sandbox's `/uploads`; the host path in single-tenant mode). */
  policyFolders: PolicyFolders;
};

export type FileLimits = {
  /** Largest single upload. */
  fileMaxBytes: number;
  /** All uploads of one instance together. */
  uploadsMaxBytes: number;
};

export type UploadedFile = { name: string; path: string; size: number };
export type DownloadedFile = { name: string; size: number; modifiedAt: string; complete: boolean };

export const UPLOAD_NAME_MAX_BYTES = 200;
/** Chromium names downloads itself (at most the file system's 255 bytes); they may be fetched by any such name. */
export const DOWNLOAD_NAME_MAX_BYTES = 255;
/** The suffix of a download Chromium is still writing; it renames the file once complete. */
export const IN_PROGRESS_SUFFIX = '.crdownload';

/** The first C0 or C1 control character (or DEL) in `name`, if any. */
function controlIn(name: string): number | null {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return c;
  }
  return null;
}

/**
 * Why `name` cannot be a file name of the files API, or null. A name is one plain file name: 1 to
 * `maxBytes` bytes of UTF-8, no `/`, no NUL or other control character, not `.` or `..`, not
 * starting with a dot (hidden files, and the temporary files of uploads in progress). Names are
 * refused, never rewritten.
 */
export function fileNameProblem(name: string, maxBytes = UPLOAD_NAME_MAX_BYTES): string | null {
  if (name === '') return 'is empty';
  if (!name.isWellFormed()) return 'is not well-formed Unicode';
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > maxBytes) return `is ${bytes} bytes of UTF-8; at most ${maxBytes} are allowed`;
  if (name.includes('/')) return 'contains "/": give a plain file name, not a path';
  if (name.includes('\0')) return 'contains a NUL character';
  const control = controlIn(name);
  if (control !== null) return `contains the control character U+${control.toString(16).toUpperCase().padStart(4, '0')}`;
  if (name === '.' || name === '..') return `is "${name}"`;
  if (name.startsWith('.')) return 'starts with a dot';
  return null;
}

/** `name` if it is a valid file name, else a 400 that says why. */
export function requireFileName(name: string, maxBytes = UPLOAD_NAME_MAX_BYTES): string {
  const problem = fileNameProblem(name, maxBytes);
  if (problem) throw new BadRequest(`invalid file name ${JSON.stringify(name)}: it ${problem}`);
  return name;
}

/** An upload over the instance's total (the single-file limit is a plain PayloadTooLarge). */
export class UploadsFull extends PayloadTooLarge {
  constructor(limitBytes: number, usedBytes: number) {
    super(limitBytes);
    this.message = `this browser's uploads would exceed their limit of ${limitBytes} bytes in total (${usedBytes} bytes are used by other files); delete some first`;
  }
}

/** A download Chromium is still writing. */
export class DownloadInProgress extends DomainError {
  /** `finishing`: `name` is the final name, whose file Chromium is still moving into place. */
  constructor(name: string, finishing = false) {
    super(
      'conflict',
      finishing
        ? `${JSON.stringify(name)} is a download Chromium is still finishing (its ${IN_PROGRESS_SUFFIX} is still beside it); fetch it once it is listed as complete`
        : `${JSON.stringify(name)} is a download still in progress (${IN_PROGRESS_SUFFIX}); fetch it under its final name once complete`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Uploads

/** Bytes being written right now per uploads folder (temporary files not yet renamed into place). */
const inFlight = new Map<string, Map<symbol, number>>();
/** The final check-and-rename of uploads, one at a time per folder, so that two cannot both pass the total. */
const commits = new Map<string, Promise<unknown>>();

function serialised<T>(folder: string, work: () => Promise<T>): Promise<T> {
  const previous = commits.get(folder) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => {});
  commits.set(folder, settled);
  void settled.then(() => {
    if (commits.get(folder) === settled) commits.delete(folder);
  });
  return next;
}

const uploadPath = (files: InstanceFiles, name: string) => `${files.policyFolders.uploads}/${name}`;

/** Sizes of the uploads in place (temporary files, whose names start with a dot, excluded). */
async function uploadSizes(folder: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || !entry.isFile()) continue;
    try {
      sizes.set(entry.name, (await lstat(join(folder, entry.name))).size);
    } catch {
      // deleted meanwhile
    }
  }
  return sizes;
}

const othersTotal = (sizes: Map<string, number>, except: string) => {
  let n = 0;
  for (const [name, size] of sizes) if (name !== except) n += size;
  return n;
};

/**
 * Store `body` as the upload `name` (replacing one of that name), within the limits: a declared
 * length over either limit is refused before anything is read; a body that turns out longer is
 * refused as soon as it passes one, leaving the rest unread (answer with `Connection: close`). The
 * bytes go to a temporary file in the same folder, which is renamed into place only once whole
 * and within the total, so no partial or over-limit file is ever visible under `name`.
 */
export async function storeUpload(
  files: InstanceFiles,
  name: string,
  body: Readable,
  limits: FileLimits,
  declaredLength?: number,
): Promise<UploadedFile> {
  requireFileName(name);
  // A body that fails while the folder is read and the file opened (a client gone at once) keeps
  // its error (body.errored) for copyWithin instead of throwing it with no one listening.
  const early = () => {};
  body.on('error', early);
  try {
    return await storeBody(files, name, body, limits, declaredLength);
  } finally {
    body.off('error', early);
  }
}

/** storeUpload's work, once the name is checked and the body's early errors are held. */
async function storeBody(
  files: InstanceFiles,
  name: string,
  body: Readable,
  limits: FileLimits,
  declaredLength: number | undefined,
): Promise<UploadedFile> {
  const folder = files.folders.uploads;
  const existing = await missingIsGone(uploadSizes(folder));
  const others = othersTotal(existing, name);
  const token = Symbol(name);
  // What this upload may still take: the total, less the other files in place and those in flight.
  const room = () => limits.uploadsMaxBytes - others - sumOf(inFlight.get(folder), token);
  if (declaredLength !== undefined) {
    if (declaredLength > limits.fileMaxBytes) throw new PayloadTooLarge(limits.fileMaxBytes);
    if (declaredLength > room()) throw new UploadsFull(limits.uploadsMaxBytes, limits.uploadsMaxBytes - room());
  }
  const temp = join(folder, `.upload-${randomBytes(8).toString('hex')}`);
  const flights = inFlight.get(folder) ?? new Map<symbol, number>();
  inFlight.set(folder, flights);
  flights.set(token, 0);
  let handle: FileHandle | null = null;
  try {
    handle = await missingIsGone(open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
    const size = await copyWithin(body, handle, (n) => {
      flights.set(token, n);
      if (n > limits.fileMaxBytes) return new PayloadTooLarge(limits.fileMaxBytes);
      if (n > room()) return new UploadsFull(limits.uploadsMaxBytes, limits.uploadsMaxBytes - room());
      return null;
    });
    // Readable by the instance's uid whatever the service's umask.
    await handle.chmod(0o644);
    await handle.close();
    handle = null;
    return await serialised(folder, async () => {
      const now = await missingIsGone(uploadSizes(folder));
      const used = othersTotal(now, name);
      if (used + size > limits.uploadsMaxBytes) throw new UploadsFull(limits.uploadsMaxBytes, used);
      await missingIsGone(rename(temp, join(folder, name)));
      return { name, path: uploadPath(files, name), size };
    });
  } finally {
    flights.delete(token);
    if (flights.size === 0 && inFlight.get(folder) === flights) inFlight.delete(folder);
    await handle?.close().catch(() => {});
    await unlink(temp).catch(() => {});
  }
}

function sumOf(flights: Map<symbol, number> | undefined, except: symbol): number {
  let n = 0;
  for (const [token, size] of flights ?? []) if (token !== except) n += size;
  return n;
}

/**
 * Write `body` into `handle`, one chunk at a time with back-pressure, asking `check` after each
 * chunk whether the running size is still allowed. A refusal stops reading at once (the stream is
 * left paused, not destroyed, so that the refusal can still be answered on its connection).
 */
function copyWithin(body: Readable, handle: FileHandle, check: (size: number) => Error | null): Promise<number> {
  return new Promise((resolve, reject) => {
    // Failed or cut off before the copy began: its events are past.
    if (body.errored) return reject(body.errored);
    if (body.destroyed && !body.readableEnded) return reject(new BadRequest('the upload was aborted before its end'));
    let size = 0;
    let done = false;
    let writing: Promise<unknown> = Promise.resolve();
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('aborted', onAborted);
      body.off('close', onClose);
      if (err) {
        body.pause();
        reject(err);
      } else {
        resolve(size);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      const refusal = check(size);
      if (refusal) return finish(refusal);
      body.pause();
      writing = writeAll(handle, chunk).then(
        () => {
          if (!done) body.resume();
        },
        (err: Error) => finish(err),
      );
    };
    const onEnd = () =>
      void writing.then(
        () => finish(null),
        (err: Error) => finish(err),
      );
    const onError = (err: Error) => finish(err);
    const onAborted = () => finish(new BadRequest('the upload was aborted before its end'));
    const onClose = () => {
      if (!body.readableEnded) onAborted();
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('aborted', onAborted);
    body.on('close', onClose);
    body.resume();
  });
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

export async function listUploads(files: InstanceFiles): Promise<UploadedFile[]> {
  const sizes = await missingIsGone(uploadSizes(files.folders.uploads));
  return [...sizes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, size]) => ({ name, path: uploadPath(files, name), size }));
}

export async function deleteUpload(files: InstanceFiles, name: string): Promise<void> {
  requireFileName(name);
  try {
    await unlink(join(files.folders.uploads, name));
  } catch (err) {
    if (isCode(err, 'ENOENT')) throw new NotFound(`no upload named ${JSON.stringify(name)}`);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Downloads

/**
 * The downloads Chromium saved, oldest first. Files still being written are listed as they are
 * on disk, with their `.crdownload` name and `complete: false`; Chromium renames each to its final
 * name when it completes. Before that rename it writes an empty file under the final name (to give
 * the download the folder's own permissions), so for a moment both names are there: the final
 * name is complete only once its `.crdownload` is gone. Only regular files whose names the API can
 * serve are listed (no symlinks, folders or hidden files).
 */
export async function listDownloads(files: InstanceFiles): Promise<DownloadedFile[]> {
  const folder = files.folders.downloads;
  const entries = await missingIsGone(readdir(folder, { withFileTypes: true }));
  const names = new Set(entries.map((e) => e.name));
  const listed: DownloadedFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || fileNameProblem(entry.name, DOWNLOAD_NAME_MAX_BYTES)) continue;
    try {
      const stat = await lstat(join(folder, entry.name));
      if (!stat.isFile()) continue;
      listed.push({
        name: entry.name,
        size: stat.size,
        modifiedAt: stat.mtime.toISOString(),
        complete: !entry.name.endsWith(IN_PROGRESS_SUFFIX) && !names.has(entry.name + IN_PROGRESS_SUFFIX),
      });
    } catch {
      // renamed or deleted meanwhile
    }
  }
  return listed.sort((a, b) =>
    a.modifiedAt < b.modifiedAt ? -1 : a.modifiedAt > b.modifiedAt ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
}

/** Whether anything is at `path` (a symlink itself, not followed). */
const present = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

export type OpenDownload = {
  name: string;
  /** The size when opened; `stream()` gives exactly this many bytes or fails. */
  size: number;
  modifiedAt: Date;
  /** The file's bytes (once); closes the file when done. */
  stream(): Readable;
  close(): Promise<void>;
};

/**
 * Open the download `name` for reading, refusing anything but a regular file that is really in
 * the downloads folder: opened with O_NOFOLLOW (a symlink fails to open) and O_NONBLOCK (a FIFO does
 * not hang the service), then judged on the opened descriptor (fstat: a regular file; its path per
 * /proc/self/fd: the downloads folder itself), so that nothing swapped in between a check and the
 * open is served.
 */
export async function openDownload(files: InstanceFiles, name: string): Promise<OpenDownload> {
  requireFileName(name, DOWNLOAD_NAME_MAX_BYTES);
  if (name.endsWith(IN_PROGRESS_SUFFIX)) throw new DownloadInProgress(name);
  const folder = files.folders.downloads;
  // The empty file Chromium puts under the final name before it moves the download there
  // (listDownloads): looked for before the open, as the move replaces that file whole.
  if (await present(join(folder, name + IN_PROGRESS_SUFFIX))) throw new DownloadInProgress(name, true);
  const absent = () => new NotFound(`no download named ${JSON.stringify(name)}`);
  let handle: FileHandle;
  try {
    handle = await open(join(folder, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    // ELOOP: a symlink; ENXIO: a socket or a FIFO without a writer; EISDIR cannot happen with O_RDONLY.
    if (isCode(err, 'ENOENT', 'ELOOP', 'ENXIO', 'ENOTDIR', 'EACCES')) throw absent();
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw absent();
    const expected = join(await realpath(folder), name);
    const actual = await readlink(`/proc/self/fd/${handle.fd}`);
    if (actual !== expected) throw absent();
    let streamed = false;
    return {
      name,
      size: stat.size,
      modifiedAt: stat.mtime,
      stream() {
        if (streamed) throw new Error('a download is streamed once');
        streamed = true;
        return Readable.from(exactly(handle, stat.size, name));
      },
      close: async () => {
        // Once streaming, the stream owns the file and closes it when it ends or is destroyed.
        if (!streamed) await handle.close().catch(() => {});
      },
    };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/**
 * Exactly `size` bytes of the file, the size announced: a file that grows meanwhile is cut there,
 * one that shrinks fails the stream (the response is then cut short rather than padded).
 */
async function* exactly(handle: FileHandle, size: number, name: string): AsyncGenerator<Buffer> {
  try {
    if (size === 0) return;
    let read = 0;
    for await (const chunk of handle.createReadStream({ start: 0, end: size - 1, autoClose: false })) {
      read += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (read !== size) throw new Error(`download ${name} shrank while it was read`);
  } finally {
    await handle.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------

function isCode(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}

/** The instance's folders go when it ends: an operation that finds them gone is about a browser that is gone. */
async function missingIsGone<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isCode(err, 'ENOENT')) throw new NotFound('the browser ended: its files are gone');
    throw err;
  }
}
