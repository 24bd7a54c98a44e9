import { request, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { closeFrame, FrameBoundary } from '#shared/ws-frames.ts';
import { ServiceUnavailable } from '#shared/errors.ts';
import { sendError } from './respond.ts';

/**
 * Passing a client's request on to another node, unchanged but for one added header (the node
 * signature) and the hop-by-hop ones HTTP says a proxy must not pass (RFC 9110, section 7.6.1).
 * Plain requests are streamed both ways (an upload is not held in memory); WebSocket handshakes are
 * spliced: after the other node's 101 the two sockets are joined byte for byte, so frames,
 * fragmentation, pings and close codes are the other node's own, and nothing is parsed twice.
 */

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** How long another node may take to answer before the client hears 503. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The request's headers as the other node should see them. */
function forwardedHeaders(headers: IncomingHttpHeaders, signed: Record<string, string>, upgrade: boolean): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && !(upgrade && name === 'upgrade'))) continue;
    out[name] = value;
  }
  if (upgrade) out.connection = 'Upgrade';
  return { ...out, ...signed };
}

const unreachable = (why: string) =>
  new ServiceUnavailable(`the node holding this browser cannot be reached (${why}); try again shortly`, 2);

/** Stream `req` to `target` (a base address such as http://10.0.0.2:3100) and its answer back to `res`. */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, target: string, signed: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(req.url ?? '/', target);
    const upstream = request(url, {
      method: req.method,
      headers: forwardedHeaders(req.headers, signed, false),
      timeout: CONNECT_TIMEOUT_MS,
    });
    upstream.on('response', (answer) => {
      upstream.setTimeout(0);
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      res.on('close', () => {
        answer.destroy();
        resolve();
      });
    });
    upstream.on('timeout', () => upstream.destroy(new Error('no answer in time')));
    upstream.on('error', (err) => {
      if (!res.headersSent) sendError(res, unreachable(err.message));
      else res.destroy();
      resolve();
    });
    req.pipe(upstream);
    req.on('aborted', () => upstream.destroy());
  });
}

/** The other node refused the handshake: its whole answer, to pass on or to try elsewhere. */
export type Refusal = { status: number; raw: Buffer };

export type SpliceOptions = {
  /** Sent to the client when the other node goes away between two frames. */
  lostClose: { code: number; reason: string };
};

/**
 * Hand a WebSocket handshake to `target`. Resolves 'spliced' once the sockets are joined, or with
 * the other node's refusal (status and raw bytes) without having written anything to the client.
 */
export function spliceUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  target: string,
  signed: Record<string, string>,
  opts: SpliceOptions,
): Promise<'spliced' | Refusal> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.url ?? '/', target);
    const upstream = request(url, { method: 'GET', headers: forwardedHeaders(req.headers, signed, true), timeout: CONNECT_TIMEOUT_MS });
    upstream.on('upgrade', (answer, socket: Socket, upHead) => {
      upstream.setTimeout(0);
      socket.setTimeout(0);
      socket.setNoDelay(true);
      if (client.destroyed) {
        socket.destroy();
        return resolve('spliced');
      }
      const lines = [`HTTP/1.1 101 ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      join(client, head, socket, upHead, opts);
      resolve('spliced');
    });
    upstream.on('response', (answer) => {
      upstream.setTimeout(0);
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 64 * 1024) chunks.push(c);
      });
      answer.on('end', () => {
        const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? STATUS_CODES[answer.statusCode ?? 502] ?? ''}`];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          const name = answer.rawHeaders[i] as string;
          if (!HOP_BY_HOP.has(name.toLowerCase())) lines.push(`${name}: ${answer.rawHeaders[i + 1]}`);
        }
        lines.push('connection: close');
        resolve({ status: answer.statusCode ?? 502, raw: Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), ...chunks]) });
      });
      answer.on('error', (err) => reject(unreachable(err.message)));
    });
    upstream.on('timeout', () => upstream.destroy(new Error('no answer in time')));
    upstream.on('error', (err) => reject(unreachable(err.message)));
    upstream.end();
  });
}

/** Join the two sockets; when the other node goes, close the client's with `lostClose` if a frame boundary allows. */
function join(client: Duplex, head: Buffer, upstream: Socket, upHead: Buffer, { lostClose }: SpliceOptions): void {
  const frames = new FrameBoundary();
  let clientGone = false;
  if (head.length) upstream.write(head);
  if (upHead.length) {
    frames.push(upHead);
    client.write(upHead);
  }
  upstream.on('data', (chunk: Buffer) => {
    frames.push(chunk);
    if (!client.write(chunk)) upstream.pause();
  });
  client.on('drain', () => upstream.resume());
  client.on('data', (chunk: Buffer) => {
    if (!upstream.write(chunk)) client.pause();
  });
  upstream.on('drain', () => client.resume());
  const upstreamGone = () => {
    if (clientGone) return;
    clientGone = true;
    // The other node said goodbye itself: pass on the end. Otherwise it was lost, and the client
    // hears so in a close frame of ours, which may only go between two frames.
    if (frames.closeSeen) client.end();
    else if (frames.atBoundary && client.writable) client.end(closeFrame(lostClose.code, lostClose.reason));
    else client.destroy();
  };
  upstream.on('end', upstreamGone);
  upstream.on('close', upstreamGone);
  upstream.on('error', upstreamGone);
  const clientClosed = () => {
    clientGone = true;
    upstream.destroy();
  };
  client.on('close', clientClosed);
  client.on('error', clientClosed);
}
