import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';

/**
 * Chromium's `--remote-debugging-pipe` transport: the browser reads commands from its fd 3 and
 * writes replies and events to its fd 4, each message a JSON text ended by a NUL byte. Messages
 * are handed on as the bytes Chromium wrote (no decoding, no copy unless one spans chunks), so a
 * relay can forward a multi-megabyte screenshot without parsing it.
 */
export class CdpPipe extends EventEmitter<{ message: [Buffer]; close: [] }> {
  readonly #out: Writable;
  readonly #in: Readable;
  #pending: Buffer[] = [];
  #closed = false;

  constructor(toBrowser: Writable, fromBrowser: Readable) {
    super();
    this.#out = toBrowser;
    this.#in = fromBrowser;
    fromBrowser.on('data', (chunk: Buffer) => this.#read(chunk));
    const end = () => this.#close();
    fromBrowser.once('end', end);
    fromBrowser.once('close', end);
    fromBrowser.on('error', end);
    toBrowser.on('error', end);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Send one message; false when the pipe is full (wait for `drain()` before sending much more). */
  send(text: string): boolean {
    if (this.#closed) return false;
    return this.#out.write(`${text}\0`);
  }

  /** Resolves once the pipe to Chromium has room again. */
  drain(): Promise<void> {
    return this.#out.writableNeedDrain ? new Promise((resolve) => this.#out.once('drain', () => resolve())) : Promise.resolve();
  }

  /** Stop reading from Chromium (a consumer is slow); `resume()` reads on. */
  pause(): void {
    this.#in.pause();
  }

  resume(): void {
    this.#in.resume();
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let nul = chunk.indexOf(0, start); nul >= 0; nul = chunk.indexOf(0, start)) {
      const part = chunk.subarray(start, nul);
      start = nul + 1;
      let message = part;
      if (this.#pending.length) {
        this.#pending.push(part);
        message = Buffer.concat(this.#pending);
        this.#pending = [];
      }
      if (message.length) this.emit('message', message);
    }
    if (start < chunk.length) this.#pending.push(chunk.subarray(start));
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.emit('close');
  }
}
