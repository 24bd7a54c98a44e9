/**
 * Where WebSocket frames end in a byte stream (RFC 6455, section 5.2), without keeping or parsing
 * payloads. A node that splices a client's WebSocket to the node holding its browser passes bytes
 * through untouched; when that node is lost, the splice may close the client's socket with a close
 * frame of its own only between two frames, never inside one. This says when that is.
 */
export class FrameBoundary {
  /** Bytes of the current frame's payload still to come. */
  #payloadLeft = 0;
  /** A frame header seen only in part. */
  #header: Buffer | null = null;
  /** True once the stream is no longer WebSocket framing (it cannot be closed cleanly then). */
  #lost = false;
  #closeSeen = false;

  /** True once a close frame has gone by: the stream's own end was said. */
  get closeSeen(): boolean {
    return this.#closeSeen;
  }

  /** True when everything seen so far is whole frames. */
  get atBoundary(): boolean {
    return !this.#lost && this.#payloadLeft === 0 && this.#header === null;
  }

  /** Account for the next bytes of the stream. */
  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length && !this.#lost) {
      if (this.#payloadLeft > 0) {
        const take = Math.min(this.#payloadLeft, chunk.length - i);
        this.#payloadLeft -= take;
        i += take;
        continue;
      }
      // A header: 2 bytes, then 2 or 8 bytes of length, then 4 of mask when masked.
      const pending: Buffer = this.#header ? Buffer.concat([this.#header, chunk.subarray(i)]) : chunk.subarray(i);
      const need = headerLength(pending);
      if (need === null || pending.length < need) {
        this.#header = Buffer.from(pending);
        return;
      }
      const length = payloadLength(pending);
      if (length === null) {
        this.#lost = true;
        return;
      }
      if (((pending[0] as number) & 0x0f) === 0x8) this.#closeSeen = true;
      const consumedFromChunk = need - (this.#header?.length ?? 0);
      this.#header = null;
      i += consumedFromChunk;
      this.#payloadLeft = length;
    }
  }
}

/** The header's full length once its first two bytes are known, else null. */
function headerLength(b: Buffer): number | null {
  if (b.length < 2) return null;
  const len7 = (b[1] as number) & 0x7f;
  const masked = ((b[1] as number) & 0x80) !== 0;
  return 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (masked ? 4 : 0);
}

function payloadLength(b: Buffer): number | null {
  const len7 = (b[1] as number) & 0x7f;
  if (len7 < 126) return len7;
  if (len7 === 126) return b.readUInt16BE(2);
  const n = b.readBigUInt64BE(2);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(n);
}

/** An unmasked close frame (server to client) with `code` and a UTF-8 reason of at most 123 bytes. */
export function closeFrame(code: number, reason: string): Buffer {
  let text = Buffer.from(reason, 'utf8');
  if (text.length > 123) text = text.subarray(0, 123);
  const frame = Buffer.alloc(4 + text.length);
  frame[0] = 0x88;
  frame[1] = 2 + text.length;
  frame.writeUInt16BE(code, 2);
  text.copy(frame, 4);
  return frame;
}
