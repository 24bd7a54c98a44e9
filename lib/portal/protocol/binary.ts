/**
 * Binary messages of the portal's sockets: a 4-byte big-endian length, that many bytes of JSON
 * metadata, then the payload (a JPEG). Shared by the live view's frames and the dashboard's thumbnails.
 */
export function encodeWithMeta(meta: unknown, payload: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(JSON.stringify(meta));
  const out = new Uint8Array(4 + head.length + payload.length);
  new DataView(out.buffer).setUint32(0, head.length);
  out.set(head, 4);
  out.set(payload, 4 + head.length);
  return out;
}

export function decodeWithMeta<M>(data: ArrayBuffer | Uint8Array): { meta: M; payload: Uint8Array } {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.byteLength < 4) throw new RangeError('binary message too short');
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (4 + length > bytes.byteLength) throw new RangeError('binary message metadata runs past its end');
  const meta = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as M;
  return { meta, payload: bytes.subarray(4 + length) };
}
