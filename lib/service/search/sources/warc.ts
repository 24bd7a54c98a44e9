import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FetchedPage } from '../backend.ts';
import { decodeHtml, isHtml, parseHttpResponse } from './http-payload.ts';

/** One WARC record (ISO 28500, versions 1.0 and 1.1). */
export type WarcRecord = { type: string; targetUri: string | undefined; headers: Map<string, string>; content: Buffer };

const HEADER_END = Buffer.from('\r\n\r\n');
const MAGIC = Buffer.from('WARC/1.');
const MAX_RECORD = 64 * 1024 * 1024;

/** Records of a WARC stream, uncompressed. A stretch of bytes that is not a record is skipped to the
 * next record and counted in `skipped`. */
export async function* warcRecords(input: AsyncIterable<Buffer>, skipped: { bytes: number } = { bytes: 0 }): AsyncGenerator<WarcRecord> {
  let buf: Buffer = Buffer.alloc(0);
  let need = 0;
  for await (const chunk of input) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    if (buf.length < need) continue;
    need = 0;
    for (;;) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a)) start++;
      if (buf.length - start < MAGIC.length) break;
      if (!buf.subarray(start, start + MAGIC.length).equals(MAGIC)) {
        const next = buf.indexOf(MAGIC, start + 1);
        const drop = next < 0 ? Math.max(start, buf.length - MAGIC.length) : next;
        skipped.bytes += drop - start;
        buf = buf.subarray(drop);
        if (next < 0) break;
        continue;
      }
      const headEnd = buf.indexOf(HEADER_END, start);
      if (headEnd < 0) {
        if (buf.length - start > 1024 * 1024) {
          skipped.bytes += MAGIC.length;
          buf = buf.subarray(start + MAGIC.length);
          continue;
        }
        break;
      }
      const lines = buf.subarray(start, headEnd).toString('utf8').split('\r\n');
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      const length = Number(headers.get('content-length'));
      if (!Number.isInteger(length) || length < 0 || length > MAX_RECORD) {
        skipped.bytes += MAGIC.length;
        buf = buf.subarray(start + MAGIC.length);
        continue;
      }
      const bodyStart = headEnd + HEADER_END.length;
      if (buf.length < bodyStart + length) {
        need = bodyStart + length;
        buf = buf.subarray(start);
        need -= start;
        break;
      }
      const content = buf.subarray(bodyStart, bodyStart + length);
      buf = buf.subarray(bodyStart + length);
      yield {
        type: (headers.get('warc-type') ?? '').toLowerCase(),
        targetUri: headers.get('warc-target-uri')?.replace(/^<|>$/g, ''),
        headers,
        content,
      };
    }
  }
  const rest = buf.toString('latin1').replace(/[\r\n]/g, '');
  if (rest.length) skipped.bytes += rest.length;
}

/** A file (plain or gzip-compressed, detected by its first bytes) as a stream of WARC bytes;
 * `onRead` is told how many bytes of the file have been read, for a progress bar. */
export async function openWarcFile(file: string, onRead?: (bytes: number) => void): Promise<Readable> {
  const probe = createReadStream(file, { start: 0, end: 1 });
  let first = Buffer.alloc(0);
  for await (const c of probe) first = Buffer.concat([first, c as Buffer]);
  const raw = createReadStream(file, { highWaterMark: 256 * 1024 });
  let read = 0;
  raw.on('data', (c) => onRead?.((read += c.length)));
  if (first[0] === 0x1f && first[1] === 0x8b) {
    const gunzip = createGunzip();
    raw.on('error', (err) => gunzip.destroy(err));
    return raw.pipe(gunzip);
  }
  return raw;
}

export type WarcPage = { page: FetchedPage } | { skip: string; url: string | undefined };

/** The HTML pages of `response` records (and `resource` records of HTML); other records are passed
 * over, and a response that is not a 200 HTML page is reported as skipped. */
export async function* warcPages(records: AsyncIterable<WarcRecord>): AsyncGenerator<WarcPage> {
  for await (const r of records) {
    if (r.type !== 'response' && r.type !== 'resource') continue;
    const url = r.targetUri;
    if (!url) {
      yield { skip: 'record without WARC-Target-URI', url };
      continue;
    }
    try {
      if (r.type === 'resource') {
        if (!isHtml(r.headers.get('content-type'))) continue;
        yield { page: { url, html: decodeHtml(r.content, r.headers.get('content-type')) } };
        continue;
      }
      const msg = parseHttpResponse(r.content);
      if (msg.status !== 200) {
        yield { skip: `HTTP status ${msg.status}`, url };
        continue;
      }
      if (!isHtml(msg.headers.get('content-type'))) {
        yield { skip: `not HTML (${msg.headers.get('content-type')})`, url };
        continue;
      }
      yield { page: { url, html: decodeHtml(msg.body, msg.headers.get('content-type')) } };
    } catch (err) {
      yield { skip: `unreadable HTTP response: ${(err as Error).message}`, url };
    }
  }
}
