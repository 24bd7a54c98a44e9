import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { toDomainError } from '#shared/errors.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** The one place where an error becomes an HTTP response. */
export function sendError(res: ServerResponse, err: unknown, extraHeaders: Record<string, string> = {}): number {
  const e = toDomainError(err);
  if (res.headersSent) {
    res.destroy();
    return e.status;
  }
  sendJson(res, e.status, e.body(), { ...extraHeaders, ...e.headers });
  return e.status;
}

/** Refuse a WebSocket upgrade with a plain HTTP response, before any handshake. */
export function rejectUpgrade(socket: Duplex, err: unknown): number {
  const e = toDomainError(err);
  if (socket.writable) {
    const text = JSON.stringify(e.body());
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      connection: 'close',
      ...e.headers,
    };
    const head = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ''}\r\n${head}\r\n\r\n${text}`);
  } else {
    socket.destroy();
  }
  return e.status;
}
