import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export type HttpMessage = { status: number; headers: Map<string, string>; body: Buffer };

const CRLF2 = Buffer.from('\r\n\r\n');

/** Parse a raw HTTP/1.x response as a WARC `response` record stores it. Throws on a malformed one. */
export function parseHttpResponse(raw: Buffer): HttpMessage {
  let end = raw.indexOf(CRLF2);
  let sep = 4;
  if (end < 0) {
    end = raw.indexOf('\n\n');
    sep = 2;
  }
  if (end < 0) throw new Error('no end of HTTP headers');
  const head = raw.subarray(0, end).toString('latin1').split(/\r?\n/);
  const m = /^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(head[0] ?? '');
  if (!m) throw new Error('not an HTTP response');
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  let body = raw.subarray(end + sep);
  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) body = dechunk(body);
  body = decodeContent(body, headers.get('content-encoding'));
  return { status: Number(m[1]), headers, body };
}

function dechunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const lineEnd = buf.indexOf('\r\n', pos);
    if (lineEnd < 0) break;
    const size = parseInt(buf.subarray(pos, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isFinite(size) || size <= 0) break;
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    pos = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function decodeContent(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    default:
      return body;
  }
}

/** Whether a Content-Type names an HTML document (a missing one is given the benefit of the doubt). */
export function isHtml(contentType: string | undefined): boolean {
  if (!contentType) return true;
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

/** Decode an HTML body: charset from the Content-Type, else a <meta charset>, else UTF-8. */
export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  let charset = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (!charset) {
    const head = body.subarray(0, 2048).toString('latin1');
    charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
