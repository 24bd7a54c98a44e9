/**
 * Just enough of RFC 6455 framing for the CDP proxy to see message boundaries without rebuilding
 * frames: parse headers, unmask client payloads to read them, and write single-frame messages.
 */
export type Frame = {
  fin: boolean;
  opcode: number;
  /** The frame exactly as it arrived (header and payload), to pass on unchanged. */
  raw: Buffer;
  /** The payload, unmasked. */
  payload: Buffer;
};

export const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** Cut complete frames off the front of `buffer`; returns them and the incomplete rest. */
export function readFrames(buffer: Buffer, maxPayload: number): { frames: Frame[]; rest: Buffer } {
  const frames: Frame[] = [];
  let offset = 0;
  for (;;) {
    const header = frameHeader(buffer, offset);
    if (!header) break;
    if (header.length > maxPayload) throw new RangeError(`a frame of ${header.length} bytes is over the limit`);
    const end = header.payloadStart + header.length;
    if (end > buffer.length) break;
    const raw = buffer.subarray(offset, end);
    let payload = buffer.subarray(header.payloadStart, end);
    if (header.mask) {
      payload = Buffer.from(payload);
      for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (header.mask[i & 3] as number);
    }
    frames.push({ fin: header.fin, opcode: header.opcode, raw, payload });
    offset = end;
  }
  return { frames, rest: buffer.subarray(offset) };
}

/** Where the frame at `offset` ends, or null while its header is incomplete. Never copies payload. */
export function frameEnd(buffer: Buffer, offset: number): { end: number; fin: boolean; opcode: number } | null {
  const header = frameHeader(buffer, offset);
  return header && { end: header.payloadStart + header.length, fin: header.fin, opcode: header.opcode };
}

function frameHeader(buffer: Buffer, offset: number): { fin: boolean; opcode: number; length: number; mask: Buffer | null; payloadStart: number } | null {
  if (buffer.length - offset < 2) return null;
  const b0 = buffer[offset] as number;
  const b1 = buffer[offset + 1] as number;
  let length = b1 & 0x7f;
  let pos = offset + 2;
  if (length === 126) {
    if (buffer.length < pos + 2) return null;
    length = buffer.readUInt16BE(pos);
    pos += 2;
  } else if (length === 127) {
    if (buffer.length < pos + 8) return null;
    length = Number(buffer.readBigUInt64BE(pos));
    pos += 8;
  }
  let mask: Buffer | null = null;
  if (b1 & 0x80) {
    if (buffer.length < pos + 4) return null;
    mask = buffer.subarray(pos, pos + 4);
    pos += 4;
  }
  return { fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, length, mask, payloadStart: pos };
}

/** One unfragmented text frame; masked (with a random key) when it goes to a server. */
export function textFrame(text: string, opts: { masked: boolean }): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const n = payload.length;
  const lengthBytes = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + lengthBytes + (opts.masked ? 4 : 0));
  head[0] = 0x80 | OPCODE.text;
  head[1] = (opts.masked ? 0x80 : 0) | (lengthBytes === 0 ? n : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) head.writeUInt16BE(n, 2);
  if (lengthBytes === 8) head.writeBigUInt64BE(BigInt(n), 2);
  if (!opts.masked) return Buffer.concat([head, payload]);
  const mask = crypto.getRandomValues(new Uint8Array(4));
  head.set(mask, 2 + lengthBytes);
  for (let i = 0; i < n; i++) payload[i] = (payload[i] as number) ^ (mask[i & 3] as number);
  return Buffer.concat([head, payload]);
}
