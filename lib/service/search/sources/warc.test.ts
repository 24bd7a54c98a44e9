import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warcPages, warcRecords } from './warc.ts';

const record = (type: string, uri: string, content: string) =>
  `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Target-URI: <${uri}>\r\nContent-Length: ${Buffer.byteLength(content)}\r\n\r\n${content}\r\n\r\n`;

async function* chunks(buf: Buffer, size: number) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

test('records across chunk boundaries, junk skipped, pages decoded', async () => {
  const html = '<html><head><title>Ü</title></head><body>ok</body></html>';
  const data = Buffer.from(
    record('warcinfo', 'x', 'a: b') +
      'garbage in between\r\n' +
      record('response', 'https://a.test/', `HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}`) +
      record('response', 'https://a.test/404', 'HTTP/1.1 404 Not Found\r\n\r\nno'),
  );
  for (const size of [1, 7, 4096]) {
    const skipped = { bytes: 0 };
    const records = [];
    for await (const r of warcRecords(chunks(data, size), skipped)) records.push(r);
    assert.deepEqual(
      records.map((r) => r.type),
      ['warcinfo', 'response', 'response'],
      `chunk size ${size}`,
    );
    assert.ok(skipped.bytes > 0);
    const pages = [];
    for await (const p of warcPages(warcRecords(chunks(data, size)))) pages.push(p);
    assert.deepEqual(pages, [{ page: { url: 'https://a.test/', html } }, { skip: 'HTTP status 404', url: 'https://a.test/404' }]);
  }
});

test('a record with an unreadable length costs only itself, and a cut-off last record is never yielded in part', async () => {
  const next = record('resource', 'https://a.test/b', 'b');
  const badLength = Buffer.from(
    record('resource', 'https://a.test/a', 'a') + 'WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: nope\r\n\r\n' + next,
  );
  const uris = async (data: Buffer, skipped = { bytes: 0 }) => {
    const out = [];
    for await (const r of warcRecords(chunks(data, 5), skipped)) out.push(r.targetUri);
    return out;
  };
  assert.deepEqual(await uris(badLength), ['https://a.test/a', 'https://a.test/b']);
  const skipped = { bytes: 0 };
  const cut = Buffer.from(record('resource', 'https://a.test/a', 'a') + next.slice(0, 60));
  assert.deepEqual(await uris(cut, skipped), ['https://a.test/a']);
  assert.ok(skipped.bytes > 50, `the cut record is counted as skipped (${skipped.bytes} bytes)`);
});
