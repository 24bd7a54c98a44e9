import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { judge, refusal } from './cdp-policy.ts';
import { OPCODE, frameEnd, readFrames, textFrame, type Frame } from './ws-frames.ts';

/**
 * Request headers that stay with us: our credentials, the ones we set for Chromium, and
 * compression, so that client messages arrive as plain frames the policy can read.
 */
const DROPPED = new Set(['authorization', 'x-browser-id', 'host', 'origin', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'sec-websocket-extensions']);
const MAX_MESSAGE = 256 * 1024 * 1024;

export type Traffic = { toBrowser: number; toClient: number };

export type Splice = {
  /** Settles when both sides have closed. */
  closed: Promise<void>;
  destroy: () => void;
  /** Bytes relayed so far each way, read from the socket counters (nothing is counted per chunk). */
  traffic: () => Traffic;
};

/**
 * Hand an authorised WebSocket upgrade to Chromium's DevTools server and relay the two TCP streams.
 * Chromium answers the handshake itself and every frame passes through unchanged, except the few
 * client commands that `cdp-policy.ts` refuses (answered with a CDP error) or rewrites. Frames from
 * Chromium are only measured, never copied, so an error reply can be slipped in between messages.
 */
export function spliceDevtools(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  upstream: { host: string; port: number; path: string; downloadDir: string },
): Splice {
  const browser = connect({ host: upstream.host, port: upstream.port, noDelay: true });
  if ('setNoDelay' in client && typeof client.setNoDelay === 'function') client.setNoDelay(true);
  const lines = [`GET ${upstream.path} HTTP/1.1`, `Host: ${upstream.host}:${upstream.port}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!DROPPED.has(name.toLowerCase())) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  const handshake = `${lines.join('\r\n')}\r\n\r\n`;
  const destroy = () => {
    client.destroy();
    browser.destroy();
  };
  const closed = new Promise<void>((resolve) => {
    let open = 2;
    const done = () => {
      if (--open === 0) resolve();
    };
    client.once('close', () => {
      browser.destroy();
      done();
    });
    browser.once('close', () => {
      client.destroy();
      done();
    });
  });
  browser.on('error', destroy);
  client.on('error', destroy);

  const toClient = new ServerStream(client);
  browser.once('connect', () => {
    browser.write(handshake);
    browser.on('data', (chunk: Buffer) => {
      if (!toClient.write(chunk)) {
        browser.pause();
        client.once('drain', () => browser.resume());
      }
    });
    const fromClient = new ClientStream(browser, toClient, upstream.downloadDir, destroy);
    if (head.length) fromClient.push(head);
    client.on('data', (chunk: Buffer) => {
      if (!fromClient.push(chunk)) {
        client.pause();
        browser.once('drain', () => client.resume());
      }
    });
  });

  const traffic = () => ({ toBrowser: Math.max(0, browser.bytesWritten - Buffer.byteLength(handshake)), toClient: browser.bytesRead });
  return { closed, destroy, traffic };
}

/** Chromium → client: forwarded as it comes; frame boundaries are tracked so replies can be added between messages. */
class ServerStream {
  readonly #out: Duplex;
  #handshakeDone = false;
  #headerTail = '';
  #skip = 0;
  #carry: Buffer = Buffer.alloc(0);
  #midMessage = false;
  readonly #queued: Buffer[] = [];

  constructor(out: Duplex) {
    this.#out = out;
  }

  write(chunk: Buffer): boolean {
    const ok = this.#out.write(chunk);
    this.#track(chunk);
    this.#flush();
    return ok;
  }

  /** Send a whole message of ours to the client at the next message boundary. */
  inject(frame: Buffer): void {
    this.#queued.push(frame);
    this.#flush();
  }

  #atBoundary(): boolean {
    return this.#handshakeDone && this.#skip === 0 && this.#carry.length === 0 && !this.#midMessage;
  }

  #flush(): void {
    while (this.#queued.length && this.#atBoundary()) this.#out.write(this.#queued.shift() as Buffer);
  }

  #track(chunk: Buffer): void {
    let data = chunk;
    if (!this.#handshakeDone) {
      const text = this.#headerTail + data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) {
        this.#headerTail = text.slice(-3);
        return;
      }
      this.#handshakeDone = true;
      data = data.subarray(data.length - (text.length - end - 4));
    }
    if (this.#skip > 0) {
      const n = Math.min(this.#skip, data.length);
      this.#skip -= n;
      data = data.subarray(n);
    }
    if (data.length === 0) return;
    if (this.#carry.length) data = Buffer.concat([this.#carry, data]);
    this.#carry = Buffer.alloc(0);
    let pos = 0;
    while (pos < data.length) {
      const f = frameEnd(data, pos);
      if (!f) {
        this.#carry = Buffer.from(data.subarray(pos));
        return;
      }
      if (f.opcode < OPCODE.close) this.#midMessage = !f.fin;
      if (f.end > data.length) {
        this.#skip = f.end - data.length;
        return;
      }
      pos = f.end;
    }
  }
}

/** Client → Chromium: whole messages are read (unmasked) and judged before they are passed on. */
class ClientStream {
  readonly #browser: Socket;
  readonly #toClient: ServerStream;
  readonly #downloadDir: string;
  readonly #fail: () => void;
  #buffer: Buffer = Buffer.alloc(0);
  #message: Frame[] = [];

  constructor(browser: Socket, toClient: ServerStream, downloadDir: string, fail: () => void) {
    this.#browser = browser;
    this.#toClient = toClient;
    this.#downloadDir = downloadDir;
    this.#fail = fail;
  }

  push(chunk: Buffer): boolean {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    let frames: Frame[];
    try {
      ({ frames, rest: this.#buffer } = readFrames(this.#buffer, MAX_MESSAGE));
    } catch {
      this.#fail();
      return true;
    }
    let ok = true;
    for (const frame of frames) {
      if (frame.opcode >= OPCODE.close) {
        ok = this.#browser.write(frame.raw) && ok;
        continue;
      }
      this.#message.push(frame);
      if (frame.fin) ok = this.#finish(this.#message.splice(0)) && ok;
    }
    if (this.#buffer.length && this.#buffer.byteOffset !== 0) this.#buffer = Buffer.from(this.#buffer);
    return ok;
  }

  #finish(frames: Frame[]): boolean {
    if (frames[0]?.opcode !== OPCODE.text) return this.#forward(frames);
    const text = Buffer.concat(frames.map((f) => f.payload)).toString('utf8');
    const verdict = judge(text, this.#downloadDir);
    if (verdict.action === 'pass') return this.#forward(frames);
    if (verdict.action === 'rewrite') return this.#browser.write(textFrame(JSON.stringify(verdict.message), { masked: true }));
    const reply = refusal(text, verdict.reason);
    if (reply) this.#toClient.inject(textFrame(reply, { masked: false }));
    return true;
  }

  #forward(frames: Frame[]): boolean {
    let ok = true;
    for (const f of frames) ok = this.#browser.write(f.raw) && ok;
    return ok;
  }
}
