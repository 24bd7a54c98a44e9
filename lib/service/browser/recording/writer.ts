import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One session's recording on disk, in its own folder (DATA_DIR/recordings/<browser id>/), as two
 * append-only files that an object store can take as they are: `events.ndjson`, one JSON object a
 * line, and `screen.jpgs`, the screen's JPEG frames back to back, each named by a `frame` event
 * with its offset and length (read back with a byte range). Writing stops at the size cap, after an
 * event that says so.
 */
export type RecordedEvent = { seq: number; t: number; type: string } & Record<string, unknown>;

export const EVENTS_FILE = 'events.ndjson';
export const SCREEN_FILE = 'screen.jpgs';

export class RecordingWriter {
  readonly dir: string;
  readonly #events: WriteStream;
  readonly #screen: WriteStream;
  readonly #capBytes: number;
  readonly #startedAt: number;
  #seq = 0;
  #screenBytes = 0;
  #bytes = 0;
  #capped = false;
  #closed: Promise<void> | null = null;

  private constructor(dir: string, capBytes: number, startedAt: number) {
    this.dir = dir;
    this.#capBytes = capBytes;
    this.#startedAt = startedAt;
    this.#events = createWriteStream(join(dir, EVENTS_FILE), { flags: 'a', mode: 0o600 });
    this.#screen = createWriteStream(join(dir, SCREEN_FILE), { flags: 'a', mode: 0o600 });
    for (const stream of [this.#events, this.#screen]) stream.on('error', () => (this.#capped = true));
  }

  static async open(dir: string, capBytes: number, startedAt = Date.now()): Promise<RecordingWriter> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new RecordingWriter(dir, capBytes, startedAt);
  }

  get bytes(): number {
    return this.#bytes;
  }

  get capped(): boolean {
    return this.#capped;
  }

  /** Milliseconds since the recording began: every event's `t`. */
  now(): number {
    return Date.now() - this.#startedAt;
  }

  event(type: string, fields: Record<string, unknown> = {}): void {
    if (this.#closed || this.#capped) return;
    // The record's own fields come first and cannot be overwritten by what it describes.
    const line = `${JSON.stringify({ seq: ++this.#seq, t: this.now(), type, ...withoutOwn(fields) })}\n`;
    if (this.#bytes + line.length > this.#capBytes) return this.#cap();
    this.#bytes += line.length;
    this.#events.write(line);
  }

  frame(jpeg: Buffer, fields: Record<string, unknown>): void {
    if (this.#closed || this.#capped) return;
    if (this.#bytes + jpeg.length > this.#capBytes) return this.#cap();
    const offset = this.#screenBytes;
    this.#screenBytes += jpeg.length;
    this.#bytes += jpeg.length;
    this.#screen.write(jpeg);
    this.event('frame', { ...fields, offset, length: jpeg.length });
  }

  close(): Promise<void> {
    this.#closed ??= Promise.all([this.#events, this.#screen].map((s) => new Promise<void>((resolve) => s.end(() => resolve())))).then(
      () => {},
    );
    return this.#closed;
  }

  #cap(): void {
    // The last line is always room enough: the cap is on what the session adds, not a hard file size.
    const line = `${JSON.stringify({ seq: ++this.#seq, t: this.now(), type: 'capped', bytes: this.#bytes })}\n`;
    this.#capped = true;
    this.#bytes += line.length;
    this.#events.write(line);
  }
}

function withoutOwn(fields: Record<string, unknown>): Record<string, unknown> {
  const { seq: _seq, t: _t, type: _type, ...rest } = fields;
  return rest;
}
