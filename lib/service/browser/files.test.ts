import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  appendFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BadRequest, NotFound, PayloadTooLarge } from '#shared/errors.ts';
import {
  DownloadInProgress,
  UploadsFull,
  deleteUpload,
  fileNameProblem,
  listDownloads,
  listUploads,
  openDownload,
  requireFileName,
  storeUpload,
  type InstanceFiles,
} from './files.ts';

const MB = 1024 * 1024;

describe('file names', () => {
  const good = [
    'a',
    'report.pdf',
    'with space.txt',
    'a..b',
    'trailing.',
    'back\\slash',
    'ünïcödé.txt',
    '日本語.txt',
    'emoji 😀.png',
    'x'.repeat(200),
    '日'.repeat(66) + 'ab', // 200 bytes
  ];
  for (const name of good)
    it(`accepts ${JSON.stringify(name.length > 40 ? `${name.slice(0, 10)}... (${Buffer.byteLength(name)} bytes)` : name)}`, () => {
      assert.equal(fileNameProblem(name), null);
      assert.equal(requireFileName(name), name);
    });

  const bad: [string, RegExp][] = [
    ['', /is empty/],
    ['.', /is "\."/],
    ['..', /is "\.\."/],
    ['.hidden', /starts with a dot/],
    ['.upload-0123456789abcdef', /starts with a dot/],
    ['a/b', /contains "\/"/],
    ['/etc/passwd', /contains "\/"/],
    ['../x', /contains "\/"/],
    ['a\0b', /NUL/],
    ['line\nbreak', /control character U\+000A/],
    ['tab\there', /control character U\+0009/],
    ['bell\u0007', /U\+0007/],
    ['del\u007f', /U\+007F/],
    ['c1\u0085', /U\+0085/],
    ['x'.repeat(201), /201 bytes of UTF-8; at most 200/],
    ['日'.repeat(67), /201 bytes/],
    ['lone \ud800 surrogate', /well-formed Unicode/],
  ];
  for (const [name, why] of bad)
    it(`refuses ${JSON.stringify(name.length > 40 ? `${name.slice(0, 10)}...` : name)} with a 400 that says why`, () => {
      assert.match(fileNameProblem(name) ?? '', why);
      assert.throws(
        () => requireFileName(name),
        (err: unknown) => {
          assert.ok(err instanceof BadRequest);
          assert.equal(err.status, 400);
          assert.match(err.message, /^invalid file name /);
          assert.match(err.message, why);
          return true;
        },
      );
    });

  it('allows longer names where asked (downloads: 255 bytes)', () => {
    assert.equal(fileNameProblem('x'.repeat(255), 255), null);
    assert.match(fileNameProblem('x'.repeat(256), 255) ?? '', /at most 255/);
  });
});

describe('uploads', () => {
  let root: string;
  let files: InstanceFiles;
  const limits = { fileMaxBytes: 1000, uploadsMaxBytes: 2500 };
  const uploads = () => files.folders.uploads;
  const onDisk = () => readdirSync(uploads()).sort();

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'periscope-files-'));
    mkdirSync(join(root, 'uploads'), { mode: 0o755 });
    mkdirSync(join(root, 'downloads'), { mode: 0o700 });
    files = {
      folders: { uploads: join(root, 'uploads'), downloads: join(root, 'downloads') },
      policyFolders: { uploads: '/uploads', downloads: '/downloads' },
    };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('stores a file readable by the instance, and answers the path Chromium sees', async () => {
    const stored = await storeUpload(files, 'hello.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]), limits, 11);
    assert.deepEqual(stored, { name: 'hello.txt', path: '/uploads/hello.txt', size: 11 });
    assert.equal(readFileSync(join(uploads(), 'hello.txt'), 'utf8'), 'hello world');
    assert.equal(statSync(join(uploads(), 'hello.txt')).mode & 0o777, 0o644);
    assert.deepEqual(onDisk(), ['hello.txt'], 'no temporary file is left');
  });

  it('stores a body without a declared length (chunked), and an empty one', async () => {
    assert.equal((await storeUpload(files, 'chunked.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(400)]), limits)).size, 1000);
    assert.equal((await storeUpload(files, 'empty', Readable.from([]), limits, 0)).size, 0);
    assert.deepEqual(await listUploads(files), [
      { name: 'chunked.bin', path: '/uploads/chunked.bin', size: 1000 },
      { name: 'empty', path: '/uploads/empty', size: 0 },
    ]);
  });

  it('replaces a file of the same name', async () => {
    await storeUpload(files, 'a.txt', Readable.from([Buffer.from('first version')]), limits);
    await storeUpload(files, 'a.txt', Readable.from([Buffer.from('second')]), limits);
    assert.equal(readFileSync(join(uploads(), 'a.txt'), 'utf8'), 'second');
    assert.deepEqual(onDisk(), ['a.txt']);
  });

  it('writes to a temporary name and renames only once the body is whole', async () => {
    const body = new PassThrough();
    const storing = storeUpload(files, 'slow.bin', body, limits);
    body.write(Buffer.alloc(300, 1));
    await new Promise((r) => setTimeout(r, 50));
    const during = onDisk();
    assert.equal(during.length, 1);
    assert.match(during[0] as string, /^\.upload-[0-9a-f]{16}$/, 'only a hidden temporary file while the body arrives');
    assert.deepEqual(await listUploads(files), [], 'and it is not listed');
    body.end(Buffer.alloc(200, 2));
    assert.equal((await storing).size, 500);
    assert.deepEqual(onDisk(), ['slow.bin']);
  });

  it('refuses a declared length over the file limit before reading anything', async () => {
    const body = new PassThrough();
    body.write(Buffer.alloc(10));
    await assert.rejects(
      storeUpload(files, 'big.bin', body, limits, 1001),
      (err: unknown) => err instanceof PayloadTooLarge && err.status === 413 && /1000 bytes/.test(err.message),
    );
    assert.equal(body.readableLength, 10, 'the body was not read');
    assert.equal(body.destroyed, false);
    assert.deepEqual(onDisk(), []);
  });

  it('refuses a body that passes the file limit as it arrives, leaving no file and the rest unread', async () => {
    const body = new PassThrough();
    const storing = storeUpload(files, 'big.bin', body, limits);
    body.write(Buffer.alloc(600));
    body.write(Buffer.alloc(600));
    body.write(Buffer.alloc(600));
    await assert.rejects(storing, (err: unknown) => err instanceof PayloadTooLarge && err.status === 413);
    assert.equal(body.destroyed, false, 'left for the caller to answer on');
    assert.ok(body.isPaused());
    assert.deepEqual(onDisk(), [], 'neither the file nor its temporary file');
  });

  it('keeps a replaced file whole when its replacement is refused', async () => {
    await storeUpload(files, 'keep.txt', Readable.from([Buffer.from('original')]), limits);
    await assert.rejects(storeUpload(files, 'keep.txt', Readable.from([Buffer.alloc(800), Buffer.alloc(800)]), limits), PayloadTooLarge);
    assert.equal(readFileSync(join(uploads(), 'keep.txt'), 'utf8'), 'original');
    assert.deepEqual(onDisk(), ['keep.txt']);
  });

  it('refuses an upload that would take all uploads over their total, counting a replaced file once', async () => {
    await storeUpload(files, 'one', Readable.from([Buffer.alloc(1000)]), limits);
    await storeUpload(files, 'two', Readable.from([Buffer.alloc(1000)]), limits);
    // 2000 used; 501 more is over 2500, declared or not.
    await assert.rejects(
      storeUpload(files, 'three', Readable.from([Buffer.alloc(501)]), limits, 501),
      (err: unknown) => err instanceof UploadsFull && err.status === 413 && /2500 bytes in total/.test(err.message),
    );
    await assert.rejects(storeUpload(files, 'three', Readable.from([Buffer.alloc(501)]), limits), UploadsFull);
    assert.equal((await storeUpload(files, 'three', Readable.from([Buffer.alloc(500)]), limits)).size, 500, 'exactly the total is allowed');
    // Replacing 'two' (1000) with 1000 bytes stays within the total.
    assert.equal((await storeUpload(files, 'two', Readable.from([Buffer.alloc(1000)]), limits, 1000)).size, 1000);
    assert.deepEqual(onDisk(), ['one', 'three', 'two']);
    await deleteUpload(files, 'three');
    assert.equal((await storeUpload(files, 'four', Readable.from([Buffer.alloc(500)]), limits)).size, 500, 'deleting makes room');
  });

  it('lets concurrent uploads that together pass the total store only what fits', async () => {
    const tight = { fileMaxBytes: 1000, uploadsMaxBytes: 1500 };
    const a = new PassThrough();
    const b = new PassThrough();
    const storing = [storeUpload(files, 'a', a, tight), storeUpload(files, 'b', b, tight)];
    a.write(Buffer.alloc(400));
    b.write(Buffer.alloc(400));
    await new Promise((r) => setTimeout(r, 20));
    a.end(Buffer.alloc(400));
    b.end(Buffer.alloc(400));
    const results = await Promise.allSettled(storing);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected');
    assert.ok(refused && refused.reason instanceof UploadsFull);
    assert.equal(onDisk().length, 1);
    assert.ok(onDisk().every((n) => !n.startsWith('.')));
  });

  it('checks the total again when renaming: an upload committed meanwhile counts', async () => {
    const tight = { fileMaxBytes: 1000, uploadsMaxBytes: 1500 };
    const slow = new PassThrough();
    const storing = storeUpload(files, 'slow', slow, tight);
    slow.write(Buffer.alloc(400));
    await new Promise((r) => setTimeout(r, 20));
    // Fits beside the 400 bytes in flight, and is in place before the slow one ends.
    assert.equal((await storeUpload(files, 'quick', Readable.from([Buffer.alloc(800)]), tight)).size, 800);
    slow.end(Buffer.alloc(400));
    await assert.rejects(storing, (err: unknown) => err instanceof UploadsFull && /800 bytes are used/.test(err.message));
    assert.deepEqual(onDisk(), ['quick']);
  });

  it('leaves nothing behind when the body fails or is cut off', async () => {
    const failing = new PassThrough();
    const storing = storeUpload(files, 'cut.bin', failing, limits);
    failing.write(Buffer.alloc(100));
    await new Promise((r) => setTimeout(r, 10));
    failing.destroy(new Error('connection reset'));
    await assert.rejects(storing, /connection reset/);
    const cut = new PassThrough();
    const cutting = storeUpload(files, 'cut.bin', cut, limits);
    cut.write(Buffer.alloc(100));
    await new Promise((r) => setTimeout(r, 10));
    cut.destroy();
    await assert.rejects(cutting, (err: unknown) => err instanceof BadRequest && /aborted/.test(err.message));
    assert.deepEqual(onDisk(), []);
  });

  it('fails an upload whose body fails or is cut off before its file is open, and throws nothing', async () => {
    const failing = new PassThrough();
    const storing = storeUpload(files, 'early.bin', failing, limits);
    failing.destroy(new Error('reset at once'));
    await assert.rejects(storing, /reset at once/);
    const cut = new PassThrough();
    const cutting = storeUpload(files, 'early.bin', cut, limits);
    cut.destroy();
    await assert.rejects(cutting, (err: unknown) => err instanceof BadRequest && /aborted/.test(err.message));
    assert.deepEqual(onDisk(), []);
  });

  it('refuses bad names before reading the body', async () => {
    for (const name of ['', '.', '..', '.hidden', 'a/b', 'nul\0', 'ctl\u0001']) {
      const body = new PassThrough();
      body.write('x');
      await assert.rejects(storeUpload(files, name, body, limits), BadRequest, JSON.stringify(name));
      assert.equal(body.readableLength, 1);
    }
    assert.deepEqual(onDisk(), []);
  });

  it('answers 404 once the instance and its folders are gone', async () => {
    rmSync(root, { recursive: true, force: true });
    await assert.rejects(storeUpload(files, 'late.txt', Readable.from([Buffer.from('x')]), limits), NotFound);
    await assert.rejects(listUploads(files), NotFound);
    await assert.rejects(listDownloads(files), NotFound);
  });

  it('deletes an upload, 404 when absent, 400 for a bad name', async () => {
    await storeUpload(files, 'gone.txt', Readable.from([Buffer.from('x')]), limits);
    await deleteUpload(files, 'gone.txt');
    assert.deepEqual(onDisk(), []);
    await assert.rejects(
      deleteUpload(files, 'gone.txt'),
      (err: unknown) => err instanceof NotFound && /no upload named "gone.txt"/.test(err.message),
    );
    await assert.rejects(deleteUpload(files, '..'), BadRequest);
  });

  it('lists uploads by name, leaving out temporary and other non-regular entries', async () => {
    await storeUpload(files, 'b.txt', Readable.from([Buffer.from('bb')]), limits);
    await storeUpload(files, 'a.txt', Readable.from([Buffer.from('a')]), limits);
    writeFileSync(join(uploads(), '.upload-ffffffffffffffff'), 'partial');
    mkdirSync(join(uploads(), 'folder'));
    assert.deepEqual(await listUploads(files), [
      { name: 'a.txt', path: '/uploads/a.txt', size: 1 },
      { name: 'b.txt', path: '/uploads/b.txt', size: 2 },
    ]);
  });

  it('uses the single-tenant policy folder (a host path) in the answered path', async () => {
    const hostView: InstanceFiles = { folders: files.folders, policyFolders: { uploads: uploads(), downloads: files.folders.downloads } };
    assert.equal((await storeUpload(hostView, 'x.txt', Readable.from([Buffer.from('x')]), limits)).path, `${uploads()}/x.txt`);
  });

  it('counts bytes exactly at the file limit with megabyte sizes', async () => {
    const big = { fileMaxBytes: 2 * MB, uploadsMaxBytes: 10 * MB };
    assert.equal((await storeUpload(files, 'exact.bin', Readable.from([Buffer.alloc(MB), Buffer.alloc(MB)]), big)).size, 2 * MB);
    await assert.rejects(storeUpload(files, 'over.bin', Readable.from([Buffer.alloc(MB), Buffer.alloc(MB + 1)]), big), PayloadTooLarge);
  });
});

describe('downloads', () => {
  let root: string;
  let files: InstanceFiles;
  let outside: string;
  const downloads = () => files.folders.downloads;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'periscope-files-'));
    mkdirSync(join(root, 'uploads'));
    mkdirSync(join(root, 'downloads'));
    outside = join(root, 'secret.txt');
    writeFileSync(outside, 'host secret');
    files = {
      folders: { uploads: join(root, 'uploads'), downloads: join(root, 'downloads') },
      policyFolders: { uploads: '/uploads', downloads: '/downloads' },
    };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const read = async (name: string) => {
    const file = await openDownload(files, name);
    return { size: file.size, body: await text(file.stream()) };
  };
  const absent = (name: string) =>
    assert.rejects(openDownload(files, name), (err: unknown) => err instanceof NotFound && err.status === 404, name);

  it('lists regular files oldest first, a .crdownload as incomplete, nothing else', async () => {
    writeFileSync(join(downloads(), 'report.txt'), 'report');
    utimesSync(join(downloads(), 'report.txt'), new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
    writeFileSync(join(downloads(), 'older.bin'), 'old');
    utimesSync(join(downloads(), 'older.bin'), new Date('2029-01-01T00:00:00Z'), new Date('2029-01-01T00:00:00Z'));
    writeFileSync(join(downloads(), 'big.zip.crdownload'), 'partial');
    utimesSync(join(downloads(), 'big.zip.crdownload'), new Date('2031-01-01T00:00:00Z'), new Date('2031-01-01T00:00:00Z'));
    writeFileSync(join(downloads(), '.com.google.Chrome.abc'), 'hidden');
    symlinkSync(outside, join(downloads(), 'link.txt'));
    mkdirSync(join(downloads(), 'folder'));
    execFileSync('mkfifo', [join(downloads(), 'pipe')]);
    const listed = await listDownloads(files);
    assert.deepEqual(
      listed.map((f) => [f.name, f.size, f.complete]),
      [
        ['older.bin', 3, true],
        ['report.txt', 6, true],
        ['big.zip.crdownload', 7, false],
      ],
    );
    assert.equal(listed.find((f) => f.name === 'report.txt')?.modifiedAt, '2030-01-01T00:00:00.000Z');
  });

  it("lists the final name as incomplete and refuses it (409) while its .crdownload is still beside it, as Chromium's move leaves them", async () => {
    // Chromium finishes a download by writing an empty file under the final name (so that the
    // download takes the folder's permissions) and then renaming the .crdownload over it.
    writeFileSync(join(downloads(), 'data.bin.crdownload'), 'all of it');
    writeFileSync(join(downloads(), 'data.bin'), '');
    const during = await listDownloads(files);
    assert.deepEqual(during.map((f) => [f.name, f.size, f.complete]).sort(), [
      ['data.bin', 0, false],
      ['data.bin.crdownload', 9, false],
    ]);
    await assert.rejects(
      openDownload(files, 'data.bin'),
      (err: unknown) => err instanceof DownloadInProgress && err.status === 409 && /still finishing/.test(err.message),
    );
    renameSync(join(downloads(), 'data.bin.crdownload'), join(downloads(), 'data.bin'));
    assert.deepEqual(
      (await listDownloads(files)).map((f) => [f.name, f.size, f.complete]),
      [['data.bin', 9, true]],
    );
    assert.deepEqual(await read('data.bin'), { size: 9, body: 'all of it' });
  });

  it('serves a download byte for byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 256));
    writeFileSync(join(downloads(), 'data.bin'), bytes);
    const file = await openDownload(files, 'data.bin');
    assert.equal(file.size, bytes.length);
    const chunks: Buffer[] = [];
    for await (const c of file.stream()) chunks.push(c as Buffer);
    assert.deepEqual(Buffer.concat(chunks), bytes);
    assert.deepEqual(await read('data.bin'), { size: 70_000, body: bytes.toString() });
    writeFileSync(join(downloads(), 'empty'), '');
    assert.deepEqual(await read('empty'), { size: 0, body: '' });
  });

  it('never follows a symlink, whether it points outside the folder or inside it', async () => {
    symlinkSync(outside, join(downloads(), 'escape.txt'));
    symlinkSync('/etc/passwd', join(downloads(), 'passwd'));
    writeFileSync(join(downloads(), 'real.txt'), 'real');
    symlinkSync(join(downloads(), 'real.txt'), join(downloads(), 'alias.txt'));
    symlinkSync('real.txt', join(downloads(), 'relative.txt'));
    symlinkSync('/nonexistent', join(downloads(), 'dangling'));
    for (const name of ['escape.txt', 'passwd', 'alias.txt', 'relative.txt', 'dangling']) await absent(name);
    assert.deepEqual(await read('real.txt'), { size: 4, body: 'real' });
  });

  it('refuses folders, FIFOs (without hanging) and missing files with 404', async () => {
    mkdirSync(join(downloads(), 'folder'));
    execFileSync('mkfifo', [join(downloads(), 'pipe')]);
    for (const name of ['folder', 'pipe', 'missing.txt']) await absent(name);
  });

  it('refuses bad names with 400, and a download in progress with 409', async () => {
    for (const name of ['..', '.', '../secret.txt', 'a/b', '.hidden', 'x\0']) {
      await assert.rejects(openDownload(files, name), BadRequest, name);
    }
    writeFileSync(join(downloads(), 'big.zip.crdownload'), 'partial');
    await assert.rejects(
      openDownload(files, 'big.zip.crdownload'),
      (err: unknown) => err instanceof DownloadInProgress && err.status === 409,
    );
  });

  it('serves through a downloads folder whose own path holds a symlink (the check resolves the folder)', async () => {
    writeFileSync(join(downloads(), 'ok.txt'), 'ok');
    const linked = join(root, 'linked-downloads');
    symlinkSync(downloads(), linked);
    const viaLink: InstanceFiles = { ...files, folders: { ...files.folders, downloads: linked } };
    const file = await openDownload(viaLink, 'ok.txt');
    assert.equal(await text(file.stream()), 'ok');
  });

  it('serves exactly the size announced when the file grows, and fails the stream when it shrinks', async () => {
    writeFileSync(join(downloads(), 'grows.txt'), 'abc');
    const growing = await openDownload(files, 'grows.txt');
    appendFileSync(join(downloads(), 'grows.txt'), 'defgh');
    assert.equal(growing.size, 3);
    assert.equal(await text(growing.stream()), 'abc');

    writeFileSync(join(downloads(), 'shrinks.txt'), 'abcdef');
    const shrinking = await openDownload(files, 'shrinks.txt');
    truncateSync(join(downloads(), 'shrinks.txt'), 2);
    await assert.rejects(text(shrinking.stream()), /shrank/);
  });

  it('keeps serving a file opened before it was swapped for a symlink', async () => {
    writeFileSync(join(downloads(), 'swap.txt'), 'mine');
    const file = await openDownload(files, 'swap.txt');
    rmSync(join(downloads(), 'swap.txt'));
    symlinkSync(outside, join(downloads(), 'swap.txt'));
    assert.equal(await text(file.stream()), 'mine');
    await absent('swap.txt');
  });

  it('closes the file when not streamed (HEAD)', async () => {
    writeFileSync(join(downloads(), 'head.txt'), 'x');
    const file = await openDownload(files, 'head.txt');
    await file.close();
    await file.close();
  });
});
