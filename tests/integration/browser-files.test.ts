import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, symlinkSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { closeStart, debuggerUrl, eventually, instancesDir, openStart, profileDirs, type StartedBrowser } from '../helpers/browser.ts';
import { startPageServer } from '../helpers/pages.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const MB = 1024 * 1024;

/** A page with a file input, and a way to read what it holds. */
const INPUT_PAGE = `<!doctype html><title>files</title><input id="file" type="file">
<script>
  window.readInput = () => new Promise((resolve, reject) => {
    const file = document.getElementById('file').files[0];
    if (!file) return resolve(null);
    const reader = new FileReader();
    reader.onload = () => resolve({ name: file.name, size: file.size, text: reader.result });
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
</script>`;

type FileEntry = { name: string; path?: string; size: number; modifiedAt?: string; complete?: boolean };
type RawAnswer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/**
 * Raw HTTP: for paths fetch would normalise (`..`, `%2e`), and bodies it would not send as asked.
 * `chunks` are written with back-pressure until the service answers; an answer that came before
 * the whole body was sent wins over the broken connection that may follow it.
 */
function raw(base: string, method: string, path: string, headers: Record<string, string>, chunks: Buffer[] = []): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    let answered = false;
    const req = request({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      answered = true;
      const body: Buffer[] = [];
      res.on('data', (c: Buffer) => body.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(body) }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(body) }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    void (async () => {
      for (const chunk of chunks) {
        if (answered || req.destroyed) return;
        if (!req.write(chunk)) {
          await new Promise<void>((r) => {
            const done = () => {
              req.off('drain', done).off('close', done);
              r();
            };
            req.on('drain', done).on('close', done);
          });
        }
      }
      if (!answered && !req.destroyed) req.end();
    })();
  });
}

const json = (a: RawAnswer) => JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;

describe('the files API (uploads for file inputs, downloads back) with real sandboxed Chromium', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let files: { url: string; server: Server };
  let token: string;
  let started: StartedBrowser;
  const binary = randomBytes(300 * 1024);
  const binaryName = 'données ü.bin';

  before(async () => {
    // The pages are on loopback, which the egress policy refuses unless allowed; 1 MB per file
    // and 2 MB in all make the limits cheap to reach.
    service = await startService({
      BROWSER_POOL_SIZE: '0',
      BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
      BROWSER_FILE_MAX_MB: '1',
      BROWSER_UPLOADS_MAX_MB: '2',
    });
    pages = await startPageServer();
    // A binary download with a non-ASCII name, which the page server does not have.
    const server = createServer((req, res) => {
      if (req.url === '/binary') {
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': binary.length,
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(binaryName)}`,
        });
        res.end(binary);
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(INPUT_PAGE);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    files = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
    token = service.createKey({ name: 'files' }).token;
    started = await openStart(service.wsUrl, token);
  });
  after(async () => {
    if (started?.socket.readyState === started?.socket.OPEN) started?.socket.close();
    await pages?.close();
    files?.server.closeAllConnections();
    if (files) await new Promise((resolve) => files.server.close(resolve));
    await service?.stop();
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${service.url}${path}`, { ...init, headers: { ...started.headers, ...(init.headers as Record<string, string> | undefined) } });
  const put = (name: string, body: string | Buffer) =>
    api(`/v0/browser/uploads/${encodeURIComponent(name)}`, {
      method: 'PUT',
      body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    });
  const uploads = async () => ((await (await api('/v0/browser/uploads')).json()) as { files: FileEntry[] }).files;
  const downloads = async () => ((await (await api('/v0/browser/downloads')).json()) as { files: FileEntry[] }).files;
  /** The instance's host folder (one live instance, no pool). */
  const hostFolder = async () => {
    // Another instance just closed may still be removing its folder.
    const [dir, ...more] = await eventually(
      () => profileDirs(service.dataDir),
      (d) => d.length === 1,
    );
    assert.ok(dir && more.length === 0, 'exactly one instance folder');
    return join(instancesDir(service.dataDir), dir);
  };

  it('authenticates every endpoint exactly like /json/version, and answers 404 and 405 for other paths and methods', async () => {
    const other = await openStart(service.wsUrl, service.createKey({ name: 'other' }).token);
    try {
      const endpoints: [string, string][] = [
        ['GET', '/v0/browser/uploads'],
        ['PUT', '/v0/browser/uploads/a.txt'],
        ['DELETE', '/v0/browser/uploads/a.txt'],
        ['GET', '/v0/browser/downloads'],
        ['GET', '/v0/browser/downloads/a.txt'],
      ];
      const cases: [Record<string, string>, number, RegExp][] = [
        [{}, 401, /API key/],
        [{ authorization: 'Bearer psk_nope' }, 401, /API key/],
        [{ authorization: started.headers.authorization as string }, 400, /missing X-Browser-ID/],
        [{ authorization: started.headers.authorization as string, 'x-browser-id': 'br_short' }, 400, /malformed X-Browser-ID/],
        [{ authorization: started.headers.authorization as string, 'x-browser-id': `br_${'A'.repeat(32)}` }, 404, /no live browser/],
        // Another key's live browser is not found either.
        [{ authorization: started.headers.authorization as string, 'x-browser-id': other.id }, 404, /no live browser/],
        [{ authorization: other.headers.authorization as string, 'x-browser-id': started.id }, 404, /no live browser/],
      ];
      for (const [method, path] of endpoints) {
        for (const [headers, status, message] of cases) {
          const res = await fetch(`${service.url}${path}`, { method, headers, ...(method === 'PUT' ? { body: 'x' } : {}) });
          assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(headers)}`);
          assert.match(((await res.json()) as { error: string }).error, message);
          if (status === 401) assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        }
      }
      // Nothing was stored by any of them.
      assert.deepEqual(await uploads(), []);

      const wrong: [string, string, string][] = [
        ['POST', '/v0/browser/uploads', 'GET, HEAD'],
        ['DELETE', '/v0/browser/uploads', 'GET, HEAD'],
        ['POST', '/v0/browser/uploads/a.txt', 'PUT, DELETE'],
        ['GET', '/v0/browser/uploads/a.txt', 'PUT, DELETE'],
        ['PUT', '/v0/browser/downloads', 'GET, HEAD'],
        ['DELETE', '/v0/browser/downloads/a.txt', 'GET, HEAD'],
      ];
      for (const [method, path, allow] of wrong) {
        const res = await api(path, { method });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get('allow'), allow);
        assert.match(((await res.json()) as { error: string }).error, /method not allowed/);
      }
      for (const path of ['/v0/browser/uploads/a/b', '/v0/browser/downloads/a/b', '/v0/browser/files']) {
        assert.equal((await api(path)).status, 404, path);
      }
    } finally {
      await closeStart(service.url, other);
    }
  });

  it('stores an upload in the instance, and a page reads it through puppeteer uploadFile and a Playwright CDP session', async () => {
    const name = 'résumé 2024.txt';
    const content = 'héllo from the files API\n';
    const res = await put(name, content);
    assert.equal(res.status, 201);
    const stored = (await res.json()) as FileEntry;
    assert.deepEqual(stored, { name, path: `/uploads/${name}`, size: Buffer.byteLength(content) });
    assert.deepEqual(await uploads(), [stored]);
    // On the host: in the instance's read-only uploads folder, readable by the instance's uid.
    const host = join(await hostFolder(), 'uploads', name);
    assert.equal(statSync(host).mode & 0o777, 0o644);
    assert.ok(
      readdirSync(join(await hostFolder(), 'uploads')).every((n) => !n.startsWith('.')),
      'no temporary file left',
    );

    // puppeteer: uploadFile takes the absolute path as it is (it calls DOM.setFileInputFiles).
    const pptr = await puppeteer.connect({
      browserWSEndpoint: await debuggerUrl(service.url, started.headers),
      headers: started.headers,
      defaultViewport: null,
    });
    try {
      const page = await pptr.newPage();
      await page.goto(files.url);
      const input = await page.$('input#file');
      assert.ok(input);
      await input.uploadFile(stored.path as string);
      assert.deepEqual(await page.evaluate('readInput()'), { name, size: Buffer.byteLength(content), text: content });
      // Nothing outside the instance's uploads can be put in an input.
      for (const path of ['/etc/passwd', '/uploads/../etc/passwd', '/uploads', '/home/browser/profile/Default/Cookies']) {
        await assert.rejects(input.uploadFile(path), /Periscope: only files uploaded to this browser/, path);
      }
      await page.close();
    } finally {
      await pptr.disconnect();
    }

    const pw = await chromium.connectOverCDP(await debuggerUrl(service.url, started.headers), { headers: started.headers });
    try {
      const page = await (pw.contexts()[0] ?? (await pw.newContext())).newPage();
      await page.goto(files.url);
      // Playwright's setInputFiles(path) reads the path on the client's own machine (it stats it, and
      // sends the bytes itself to a browser it does not share a disk with): a path in the remote
      // instance cannot work there. DOM.setFileInputFiles over a CDP session takes the path as is.
      await assert.rejects(page.setInputFiles('#file', stored.path as string), /ENOENT/);
      const cdp = await page.context().newCDPSession(page);
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#file' });
      await cdp.send('DOM.setFileInputFiles', { nodeId, files: [stored.path as string] });
      assert.deepEqual(await page.evaluate('readInput()'), { name, size: Buffer.byteLength(content), text: content });
      await assert.rejects(
        cdp.send('DOM.setFileInputFiles', { nodeId, files: ['/etc/passwd'] }),
        /Periscope: only files uploaded to this browser/,
      );
      // Small files need no upload at all with Playwright: it sends their bytes over CDP itself.
      await page.setInputFiles('#file', { name: 'inline.txt', mimeType: 'text/plain', buffer: Buffer.from('inline bytes') });
      assert.deepEqual(await page.evaluate('readInput()'), { name: 'inline.txt', size: 12, text: 'inline bytes' });
      await page.close();
    } finally {
      await pw.close();
    }

    // Re-uploading replaces; DELETE removes; a second DELETE is 404.
    const replaced = await put(name, 'v2');
    assert.equal(replaced.status, 201);
    assert.equal(((await replaced.json()) as FileEntry).size, 2);
    assert.deepEqual(
      (await uploads()).map((f) => [f.name, f.size]),
      [[name, 2]],
    );
    const del = await api(`/v0/browser/uploads/${encodeURIComponent(name)}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal(await del.text(), '');
    const again = await api(`/v0/browser/uploads/${encodeURIComponent(name)}`, { method: 'DELETE' });
    assert.equal(again.status, 404);
    assert.match(((await again.json()) as { error: string }).error, /no upload named/);
    assert.deepEqual(await uploads(), []);
  });

  it('refuses each bad name with a 400 that says why, and stores nothing', async () => {
    const h = { ...started.headers, 'content-length': '1' };
    const bad: [string, RegExp][] = [
      ['..', /is "\.\."/],
      ['.', /is "\."/],
      ['%2e%2e', /is "\.\."/],
      ['%2E', /is "\."/],
      ['.hidden', /starts with a dot/],
      ['a%2Fb', /contains "\/"/],
      ['%2Fetc%2Fpasswd', /contains "\/"/],
      ['nul%00', /NUL/],
      ['line%0Abreak', /control character U\+000A/],
      ['tab%09', /control character U\+0009/],
      ['del%7F', /U\+007F/],
      ['c1%C2%85', /U\+0085/],
      ['x'.repeat(201), /201 bytes of UTF-8; at most 200/],
      [encodeURIComponent('日'.repeat(67)), /201 bytes/],
      ['bad%ZZ', /malformed percent-encoding/],
      ['bad%FF', /malformed percent-encoding/],
      ['%ED%A0%80', /malformed percent-encoding/],
    ];
    for (const [name, why] of bad) {
      for (const method of ['PUT', 'DELETE']) {
        const answer =
          method === 'PUT'
            ? await raw(service.url, method, `/v0/browser/uploads/${name}`, h, [Buffer.from('x')])
            : await raw(service.url, method, `/v0/browser/uploads/${name}`, started.headers);
        assert.equal(answer.status, 400, `${method} ${name}`);
        const { error } = json(answer) as { error: string };
        assert.match(error, why, `${method} ${name}: ${error}`);
      }
      // Download names may be up to 255 bytes (Chromium names them); the rest holds for them too.
      const get = await raw(service.url, 'GET', `/v0/browser/downloads/${name}`, started.headers);
      assert.equal(get.status, /201 bytes/.test(why.source) ? 404 : 400, `GET download ${name}: ${get.body}`);
    }
    assert.match(
      (json(await raw(service.url, 'GET', `/v0/browser/downloads/${'x'.repeat(256)}`, started.headers)) as { error: string }).error,
      /256 bytes of UTF-8; at most 255/,
    );
    // A name of 200 bytes is the longest allowed; an empty name is no endpoint at all.
    const longest = 'é'.repeat(100);
    assert.equal((await put(longest, 'x')).status, 201);
    assert.equal((await api(`/v0/browser/uploads/${encodeURIComponent(longest)}`, { method: 'DELETE' })).status, 204);
    assert.equal((await raw(service.url, 'PUT', '/v0/browser/uploads/', h, [Buffer.from('x')])).status, 404);
    assert.deepEqual(await uploads(), []);
    assert.deepEqual(readdirSync(join(await hostFolder(), 'uploads')), [], 'nothing was written, not even a temporary file');
  });

  it('refuses a file over BROWSER_FILE_MAX_MB and uploads over BROWSER_UPLOADS_MAX_MB with 413, leaving no partial file', async () => {
    const declared = { ...started.headers, 'content-length': String(MB + 1) };
    // Declared too long: refused before the body is read (only a little of it is sent).
    const early = await raw(service.url, 'PUT', '/v0/browser/uploads/big.bin', declared, [Buffer.alloc(1024)]);
    assert.equal(early.status, 413);
    assert.match((json(early) as { error: string }).error, /larger than 1048576 bytes/);
    assert.equal(early.headers.connection, 'close');
    // No length declared: refused once the body passes the limit.
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 7)); // 1.25 MB
    const streamed = await raw(
      service.url,
      'PUT',
      '/v0/browser/uploads/big.bin',
      { ...started.headers, 'transfer-encoding': 'chunked' },
      chunks,
    );
    assert.equal(streamed.status, 413);
    assert.deepEqual(await uploads(), []);
    assert.deepEqual(readdirSync(join(await hostFolder(), 'uploads')), [], 'no partial or temporary file');

    // Exactly 1 MB is allowed; two of them fill the 2 MB of all uploads.
    assert.equal((await put('one.bin', Buffer.alloc(MB, 1))).status, 201);
    assert.equal((await put('two.bin', Buffer.alloc(MB, 2))).status, 201);
    const full = await put('three.bin', Buffer.from('x'));
    assert.equal(full.status, 413);
    assert.match(((await full.json()) as { error: string }).error, /exceed their limit of 2097152 bytes in total/);
    const fullChunked = await raw(
      service.url,
      'PUT',
      '/v0/browser/uploads/three.bin',
      { ...started.headers, 'transfer-encoding': 'chunked' },
      [Buffer.from('x')],
    );
    assert.equal(fullChunked.status, 413);
    // Replacing a file counts it once.
    assert.equal((await put('two.bin', Buffer.alloc(MB, 3))).status, 201);
    assert.deepEqual(
      (await uploads()).map((f) => [f.name, f.size]),
      [
        ['one.bin', MB],
        ['two.bin', MB],
      ],
    );
    assert.deepEqual(readdirSync(join(await hostFolder(), 'uploads')).sort(), ['one.bin', 'two.bin']);
    // Deleting makes room.
    assert.equal((await api('/v0/browser/uploads/one.bin', { method: 'DELETE' })).status, 204);
    assert.equal((await put('three.bin', Buffer.from('x'))).status, 201);
    for (const name of ['two.bin', 'three.bin']) await api(`/v0/browser/uploads/${name}`, { method: 'DELETE' });
    assert.deepEqual(await uploads(), []);
  });

  it('gives downloads back byte for byte: Playwright (named by GUID) and puppeteer (named by the server)', async () => {
    assert.deepEqual(await downloads(), []);
    // Playwright asks Chromium to name each download by its GUID (allowAndName): over CDP,
    // download.path() is not a file on the client, but its last part is the name in the instance.
    const pw = await chromium.connectOverCDP(await debuggerUrl(service.url, started.headers), { headers: started.headers });
    let guidName: string;
    try {
      const page = await (pw.contexts()[0] ?? (await pw.newContext())).newPage();
      await page.goto(pages.url);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.evaluate(() => {
          const a = document.createElement('a');
          a.href = '/download';
          document.body.append(a);
          a.click();
        }),
      ]);
      assert.equal(download.suggestedFilename(), 'report.txt');
      assert.equal(await download.failure(), null, 'the download completed');
      guidName = basename(await download.path());
      assert.match(guidName, /^[0-9a-f-]{36}$/);
      await page.close();
    } finally {
      await pw.close();
    }
    const listed = await downloads();
    assert.equal(listed.length, 1);
    assert.equal(listed[0]?.name, guidName);
    assert.equal(listed[0]?.size, 'downloaded content'.length);
    assert.equal(listed[0]?.complete, true);
    assert.ok(Math.abs(Date.parse(listed[0]?.modifiedAt as string) - Date.now()) < 60_000);
    const res = await api(`/v0/browser/downloads/${guidName}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.equal(res.headers.get('content-length'), String('downloaded content'.length));
    assert.equal(res.headers.get('content-disposition'), `attachment; filename*=UTF-8''${guidName}`);
    assert.equal(await res.text(), 'downloaded content');

    // puppeteer: downloads need a behavior; whatever path is named, they land in the instance.
    const pptr = await puppeteer.connect({
      browserWSEndpoint: await debuggerUrl(service.url, started.headers),
      headers: started.headers,
      defaultViewport: null,
      downloadBehavior: { policy: 'allow', downloadPath: '/tmp/ignored' },
    });
    try {
      const page = await pptr.newPage();
      await page.goto(files.url);
      await page.evaluate(() => {
        const a = document.createElement('a');
        a.href = '/binary';
        document.body.append(a);
        a.click();
      });
      const done = await eventually(downloads, (l) => l.some((f) => f.name === binaryName && f.complete), 15_000);
      assert.deepEqual(done.find((f) => f.name === binaryName)?.size, binary.length, JSON.stringify(done));
      await page.close();
    } finally {
      await pptr.disconnect();
    }
    const bin = await api(`/v0/browser/downloads/${encodeURIComponent(binaryName)}`);
    assert.equal(bin.status, 200);
    assert.equal(bin.headers.get('content-disposition'), "attachment; filename*=UTF-8''donn%C3%A9es%20%C3%BC.bin");
    assert.deepEqual(Buffer.from(await bin.arrayBuffer()), binary, 'byte for byte');
    // HEAD: the same headers, no body.
    const head = await api(`/v0/browser/downloads/${encodeURIComponent(binaryName)}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(binary.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);

    const missing = await api('/v0/browser/downloads/missing.txt');
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: string }).error, /no download named "missing.txt"/);
    const dots = await raw(service.url, 'GET', '/v0/browser/downloads/..', started.headers);
    assert.equal(dots.status, 400);
  });

  it('never serves what the tenant links or pipes into its downloads folder', async () => {
    // The downloads folder is writable by the instance's uid: stand in for a hostile tenant.
    const folder = join(await hostFolder(), 'downloads');
    symlinkSync('/etc/passwd', join(folder, 'passwd'));
    symlinkSync(join(await hostFolder(), 'uploads'), join(folder, 'up'));
    execFileSync('mkfifo', [join(folder, 'fifo')]);
    const names = (await downloads()).map((f) => f.name);
    for (const name of ['passwd', 'up', 'fifo']) {
      assert.ok(!names.includes(name), `${name} is not listed`);
      const res = await api(`/v0/browser/downloads/${name}`);
      assert.equal(res.status, 404, name);
      assert.doesNotMatch(await res.text(), /root:/);
    }
  });

  it('removes every file with the instance when /start closes', async () => {
    assert.equal((await put('last.txt', 'bye')).status, 201);
    assert.ok((await downloads()).length > 0);
    assert.equal(profileDirs(service.dataDir).length, 1);
    const headers = started.headers;
    await closeStart(service.url, started);
    assert.deepEqual(
      await eventually(
        () => profileDirs(service.dataDir),
        (d) => d.length === 0,
      ),
      [],
      'the instance folder is gone',
    );
    for (const path of ['/v0/browser/uploads', '/v0/browser/downloads', '/v0/browser/downloads/report.txt']) {
      const res = await fetch(`${service.url}${path}`, { headers });
      assert.equal(res.status, 404, path);
    }
    assert.equal((await fetch(`${service.url}/v0/browser/uploads/late.txt`, { method: 'PUT', headers, body: 'x' })).status, 404);
  });
});
