import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { SqliteSearchBackend } from '#service/search/sqlite/backend.ts';
import { httpResponse, page, runIndex, runIndexAsync, warcRecord } from '../helpers/search.ts';

const find = async (dataDir: string, query: string, language = 'en') => {
  const b = new SqliteSearchBackend(join(dataDir, 'index.db'), { cacheSize: 0 });
  try {
    return (await b.search({ query, language, limit: 10 })).results;
  } finally {
    b.close();
  }
};

describe('npm run index: WARC files', () => {
  it('indexes HTML responses, reports and skips the rest, and replaces a page on re-indexing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const warc = join(dataDir, 'crawl.warc.gz');
    const chunked = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n0\r\n\r\n`;
    const members = [
      warcRecord('warcinfo', null, 'software: test\r\n'),
      warcRecord('request', 'https://site.test/a.html', 'GET /a.html HTTP/1.1\r\n\r\n'),
      warcRecord(
        'response',
        'https://site.test/a.html',
        httpResponse(page('Alpha zebrafish', '<p>The zebrafish page of the archive.</p>')),
      ),
      warcRecord(
        'response',
        'https://site.test/b.html',
        httpResponse(chunked(page('Beta quokka', '<p>A chunked quokka page.</p>')), {
          'Content-Type': 'text/html',
          'Transfer-Encoding': 'chunked',
        }),
      ),
      warcRecord(
        'response',
        'https://site.test/c.html',
        httpResponse(gzipSync(page('Gamma narwhal', '<p>A gzip-encoded narwhal page.</p>')), {
          'Content-Type': 'text/html',
          'Content-Encoding': 'gzip',
        }),
      ),
      warcRecord('response', 'https://site.test/missing.html', httpResponse('gone', { 'Content-Type': 'text/html' }, '404 Not Found')),
      warcRecord(
        'response',
        'https://site.test/logo.png',
        httpResponse(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { 'Content-Type': 'image/png' }),
      ),
      warcRecord('response', 'https://site.test/binary.html', httpResponse(Buffer.alloc(2000, 0), { 'Content-Type': 'text/html' })),
      warcRecord('response', 'https://site.test/garbage.html', 'this is not an HTTP response'),
      warcRecord(
        'response',
        'https://SITE.test:443/a.html?utm_source=x#top',
        httpResponse(page('Alpha zebrafish', '<p>The zebrafish page of the archive.</p>')),
      ),
    ].map((m) => gzipSync(m));
    // Bytes between records that are not a record: passed over, not fatal.
    writeFileSync(warc, Buffer.concat([...members.slice(0, 4), gzipSync('junk between records\r\n\r\n'), ...members.slice(4)]));
    const r = runIndex(dataDir, [warc]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /indexed 4 pages \(3 new, 0 replaced, 1 duplicate addresses merged\)/);
    assert.match(r.stderr, /skipped https:\/\/site\.test\/missing\.html: HTTP status 404/);
    assert.match(r.stderr, /skipped https:\/\/site\.test\/logo\.png: not HTML/);
    assert.match(r.stderr, /skipped https:\/\/site\.test\/binary\.html: not text/);
    assert.match(r.stderr, /skipped https:\/\/site\.test\/garbage\.html: unreadable HTTP response/);
    assert.match(r.stderr, /not WARC records were passed over/);
    assert.equal((await find(dataDir, 'quokka'))[0]?.url, 'https://site.test/b.html');
    assert.equal((await find(dataDir, 'narwhal'))[0]?.url, 'https://site.test/c.html');
    const zebra = await find(dataDir, 'zebrafish');
    assert.deepEqual(
      zebra.map((x) => x.url),
      ['https://site.test/a.html'],
    );

    // The same page again, changed: replaced, not added.
    const again = join(dataDir, 'again.warc');
    writeFileSync(
      again,
      warcRecord('response', 'https://site.test/a.html', httpResponse(page('Alpha axolotl', '<p>Now about axolotls.</p>'))),
    );
    const r2 = runIndex(dataDir, [again, join(dataDir, 'does-not-exist.warc')]);
    assert.equal(r2.status, 1, 'a source that cannot be read fails the run');
    assert.match(r2.stdout, /indexed 1 pages \(0 new, 1 replaced/);
    assert.match(r2.stderr, /failed .*does-not-exist\.warc/);
    assert.deepEqual(await find(dataDir, 'zebrafish'), []);
    assert.equal((await find(dataDir, 'axolotl'))[0]?.url, 'https://site.test/a.html');
  });

  it('a folder of HTML needs --base-url', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const r = runIndex(dataDir, [dataDir]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /needs --base-url/);
  });
});

describe('npm run index: crawling a site', () => {
  let server: Server;
  let base: string;
  const requests: { path: string; ua: string }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  before(async () => {
    const pages: Record<string, string> = {
      '/': page(
        'Crawl home',
        '<p>Start here.</p><a href="/one.html">one</a> <a href="/two.html#frag">two</a> <a href="/private/secret.html">secret</a> <a href="http://localhost:1/elsewhere.html">elsewhere</a> <a href="/file.pdf">pdf</a> <a href="/slow.html">slow</a>',
      ),
      '/one.html': page('Page one', '<p>The pangolin lives here.</p><a href="/deep/three.html">three</a>'),
      '/two.html': page(
        'Page two',
        '<p>The okapi lives here.</p><a href="/?utm_source=loop">home again</a> <a href="/broken.html">broken</a>',
      ),
      '/deep/three.html': page('Page three', '<p>The tapir lives here.</p><a href="/deep/four.html">four</a>'),
      '/deep/four.html': page('Page four', '<p>Too deep to be crawled.</p>'),
      '/private/secret.html': page('Secret', '<p>Robots may not read this.</p>'),
    };
    server = createServer((req: IncomingMessage, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({ path, ua: req.headers['user-agent'] ?? '' });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const done = () => inFlight--;
      res.on('finish', done);
      if (path === '/robots.txt') return res.end('User-agent: *\nDisallow: /private/\n');
      if (path === '/file.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
      if (path === '/broken.html') return res.writeHead(500).end('oops');
      if (path === '/slow.html')
        return void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Slow', '<p>late</p>')), 3000);
      const html = pages[path];
      if (!html) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('obeys robots.txt, stays on the site, limits depth, skips what is not HTML, times out, says who it is', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const r = await runIndexAsync(dataDir, [
      `${base}/`,
      '--max-depth',
      '2',
      '--delay-ms',
      '0',
      '--timeout-ms',
      '1000',
      '--concurrency',
      '2',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const paths = requests.map((q) => q.path);
    assert.ok(paths.includes('/robots.txt'));
    assert.ok(!paths.includes('/private/secret.html'), 'robots.txt obeyed');
    assert.ok(!paths.includes('/deep/four.html'), 'depth limit obeyed');
    assert.equal(paths.filter((p) => p === '/').length, 1, 'a variant address of a seen page is not fetched again');
    assert.ok(
      requests.every((q) => /^PeriscopeBot\//.test(q.ua)),
      'user agent',
    );
    assert.ok(maxInFlight <= 2);
    assert.match(r.stderr, /secret\.html: disallowed by robots\.txt/);
    assert.match(r.stderr, /file\.pdf: not HTML/);
    assert.match(r.stderr, /broken\.html: HTTP status 500/);
    assert.match(r.stderr, /slow\.html: timed out/);
    assert.match(r.stdout, /indexed 4 pages \(4 new/);
    for (const [q, path] of [
      ['pangolin', '/one.html'],
      ['okapi', '/two.html'],
      ['tapir', '/deep/three.html'],
    ]) {
      assert.equal((await find(dataDir, q as string))[0]?.url, `${base}${path}`, q);
    }
    assert.deepEqual(await find(dataDir, 'Robots may not read'), []);
  });

  it('stops at --max-pages', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const before = requests.length;
    const r = await runIndexAsync(dataDir, [`${base}/`, '--max-pages', '2', '--delay-ms', '0']);
    assert.equal(r.status, 0, r.stderr);
    const pageRequests = requests.slice(before).filter((q) => q.path !== '/robots.txt');
    assert.equal(pageRequests.length, 2);
    assert.match(r.stdout, /indexed [12] pages/, r.stderr);
  });
});
