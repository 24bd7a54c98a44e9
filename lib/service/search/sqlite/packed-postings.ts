import type { PostingList } from './postings.ts';

/**
 * Posting lists as the index stores them since decision 0085: the same list as postings.ts's blob,
 * in about a third of the bytes. A reader unpacks a list once, into the typed arrays the first
 * stage walks (postings.ts keeps them in memory), so the walk is as before; the file, the disk
 * cache and a cold read are a third.
 *
 * Unsigned LEB128 varints, in this order:
 *   n, the number of pages; p, of passage numbers; a flag, 0 when every frequency is a whole
 *   number below 2^31 (they are sums of whole field weights), 1 when they follow as float32;
 *   the page ids as the gaps between them (the first from 0);
 *   the frequencies (varints, or n little-endian float32 after the flag 1);
 *   when p > 0, how many passage numbers each page has (n), then the passage numbers as they are
 *   (p little-endian uint16, copied whole when read: as varints they took 40 % fewer bytes and
 *   three times as long to read, 27 ns a page of the longest lists against 9).
 */

const FLOAT_FREQS = 1;

class Writer {
  bytes: Uint8Array;
  at = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
  }

  #room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const more = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    more.set(this.bytes.subarray(0, this.at));
    this.bytes = more;
  }

  varint(v: number): void {
    this.#room(5);
    while (v >= 0x80) {
      this.bytes[this.at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.at++] = v;
  }

  /** Little-endian uint16, as a typed array holds them on the platforms Node runs on. */
  places(values: Uint16Array): void {
    this.#room(2 * values.length);
    this.bytes.set(new Uint8Array(values.buffer, values.byteOffset, 2 * values.length), this.at);
    this.at += 2 * values.length;
  }

  floats(values: Float32Array): void {
    this.#room(4 * values.length);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset);
    for (const v of values) {
      view.setFloat32(this.at, v, true);
      this.at += 4;
    }
  }
}

export function packPostings(list: PostingList): Uint8Array {
  const { docs, freqs, starts, places } = list;
  const n = docs.length;
  const p = places.length;
  const out = new Writer(8 + 3 * n + 2 * p);
  out.varint(n);
  out.varint(p);
  let whole = true;
  for (const f of freqs)
    if (!(Number.isInteger(f) && f >= 0 && f < 2 ** 31)) {
      whole = false;
      break;
    }
  out.varint(whole ? 0 : FLOAT_FREQS);
  let last = 0;
  for (let i = 0; i < n; i++) {
    const d = docs[i] as number;
    if (i > 0 && d <= last) throw new Error(`posting list out of order: page ${d} after ${last}`);
    out.varint(d - last);
    last = d;
  }
  if (whole) for (const f of freqs) out.varint(f);
  else out.floats(freqs);
  if (p) {
    for (let i = 0; i < n; i++) out.varint((starts[i + 1] as number) - (starts[i] as number));
    out.places(places);
  }
  return out.bytes.slice(0, out.at);
}

/** Where varint() stopped. */
let after = 0;

/** The varint of `s` at `at`; `after` is then where the next begins. */
function varint(s: Uint8Array, at: number): number {
  let b = s[at++] as number;
  let v = b & 0x7f;
  for (let shift = 7; b >= 0x80 && shift <= 28; shift += 7) {
    b = s[at++] as number;
    v += (b & 0x7f) * 2 ** shift;
  }
  after = at;
  return v;
}

/** The list `packPostings` packed, in one buffer (as postings.ts's blob lays it out, which the
 * reader's memory accounting counts). Each loop reads a one-byte number itself (most are) and
 * calls varint() for the others. */
export function unpackPostings(s: Uint8Array): PostingList {
  let at = 0;
  const n = varint(s, at);
  const p = varint(s, after);
  const flag = varint(s, after);
  at = after;
  if (at > s.length || n > s.length || p > s.length) throw new Error('packed posting list ends early');
  const buffer = new ArrayBuffer(8 * n + (p ? 4 * (n + 1) + 2 * p : 0));
  const docs = new Uint32Array(buffer, 0, n);
  const freqs = new Float32Array(buffer, 4 * n, n);
  const starts = new Uint32Array(buffer, 8 * n, p ? n + 1 : 0);
  const places = new Uint16Array(buffer, 8 * n + (p ? 4 * (n + 1) : 0), p);
  let doc = 0;
  for (let i = 0; i < n; i++) {
    let v = s[at++] as number;
    if (v >= 0x80) {
      v = varint(s, at - 1);
      at = after;
    }
    docs[i] = doc += v;
  }
  if (flag === FLOAT_FREQS) {
    if (at + 4 * n > s.length) throw new Error('packed posting list ends early');
    const view = new DataView(s.buffer, s.byteOffset);
    for (let i = 0; i < n; i++, at += 4) freqs[i] = view.getFloat32(at, true);
  } else
    for (let i = 0; i < n; i++) {
      let v = s[at++] as number;
      if (v >= 0x80) {
        v = varint(s, at - 1);
        at = after;
      }
      freqs[i] = v;
    }
  if (p) {
    let start = 0;
    for (let i = 0; i < n; i++) {
      let v = s[at++] as number;
      if (v >= 0x80) {
        v = varint(s, at - 1);
        at = after;
      }
      starts[i + 1] = start += v;
    }
    if (start !== p) throw new Error('packed posting list: its passage counts do not add up');
    if (at + 2 * p > s.length) throw new Error('packed posting list ends early');
    new Uint8Array(buffer, places.byteOffset, 2 * p).set(s.subarray(at, at + 2 * p));
    at += 2 * p;
  }
  if (at > s.length) throw new Error('packed posting list ends early');
  if (at < s.length) throw new Error('packed posting list: bytes left over');
  return { docs, freqs, starts, places };
}

/** Postings whose passage numbers a row of `term_passages` holds (decision 0132, POSTINGS_FORMAT
 * 4): the first stage reads the pages and frequencies of a list (packPages), and the passages of
 * the few pages it asks about block by block (packPassageBlock). */
export const PASSAGE_BLOCK = 128;

/** Whether a list of `postings` keeps its passages apart: one longer than a block. A shorter list
 * holds them (packPostings), as every list of format 3 did: it costs a query little to read whole,
 * and most terms have one (a row of `term_passages` each would add about a tenth to the index). */
export const passagesApart = (postings: number) => postings > PASSAGE_BLOCK;

/** A list's pages and frequencies as packPostings packs them, without its passages. */
export function packPages(list: PostingList): Uint8Array {
  return packPostings({ docs: list.docs, freqs: list.freqs, starts: new Uint32Array(0), places: new Uint16Array(0) });
}

/** The passage numbers of postings `from` to `to` (exclusive) of a list that has passages: how
 * many each has (varints), then the numbers (little-endian uint16). */
export function packPassageBlock(list: PostingList, from: number, to: number): Uint8Array {
  const { starts, places } = list;
  const first = starts[from] as number;
  const last = starts[to] as number;
  const out = new Writer(2 * (to - from) + 2 * (last - first));
  for (let i = from; i < to; i++) out.varint((starts[i + 1] as number) - (starts[i] as number));
  out.places(places.subarray(first, last));
  return out.bytes.slice(0, out.at);
}

/** A block packPassageBlock packed, of `count` postings: where each one's passage numbers start
 * (count + 1) and the numbers. */
export function unpackPassageBlock(s: Uint8Array, count: number): { starts: Uint32Array; places: Uint16Array } {
  const starts = new Uint32Array(count + 1);
  let at = 0;
  let start = 0;
  for (let i = 0; i < count; i++) {
    if (at >= s.length) throw new Error('packed passage block ends early');
    let v = s[at++] as number;
    if (v >= 0x80) {
      v = varint(s, at - 1);
      at = after;
    }
    starts[i + 1] = start += v;
  }
  if (at + 2 * start !== s.length) throw new Error('packed passage block: its counts do not match its bytes');
  const places = new Uint16Array(start);
  new Uint8Array(places.buffer).set(s.subarray(at, at + 2 * start));
  return { starts, places };
}

/** The list of `pages` (packPages) with the passage numbers of its `blocks` (packPassageBlock, in
 * order, one for every PASSAGE_BLOCK postings; none at all for a list without passages). */
export function joinPassages(pages: PostingList, blocks: readonly Uint8Array[]): PostingList {
  const n = pages.docs.length;
  if (!blocks.length) return pages;
  if (blocks.length !== Math.ceil(n / PASSAGE_BLOCK)) throw new Error(`${blocks.length} passage blocks for ${n} postings`);
  const parts = blocks.map((b, k) => unpackPassageBlock(b, Math.min(PASSAGE_BLOCK, n - k * PASSAGE_BLOCK)));
  const starts = new Uint32Array(n + 1);
  const places = new Uint16Array(parts.reduce((a, p) => a + p.places.length, 0));
  let i = 0;
  let p = 0;
  for (const part of parts) {
    for (let k = 1; k < part.starts.length; k++) starts[++i] = p + (part.starts[k] as number);
    places.set(part.places, p);
    p += part.places.length;
  }
  return { docs: pages.docs, freqs: pages.freqs, starts, places };
}
