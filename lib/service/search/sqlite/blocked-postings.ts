import type { PostingList } from './postings.ts';
import type { TermList } from './term-list.ts';

/**
 * Posting lists as the index stores them since decision 0089: packed as decision 0085 packs them
 * (packed-postings.ts), in blocks of BLOCK entries, after a directory that says of each block where
 * it ends, which page it ends with, and the pairs (frequency, page length) that bound its entries'
 * scores. A query reads the directory and unpacks a block only when it looks into it
 * (BlockedList), and the first stage (max-score.ts) leaves out the blocks and pages whose bounds
 * cannot reach its k best. A block's bound is exact, not an estimate: BM25's term weight grows with
 * the frequency and falls with the page's length, so the highest weight of a block is that of one
 * of its entries that no other entry beats on both (the Pareto front that Lucene's "impacts"
 * keep), and the front is stored whole, so the bound holds for any idf and average length.
 *
 * Unsigned LEB128 varints, in this order:
 *   n, the number of pages; p, of passage numbers; a flag, 0 when every frequency is a whole
 *   number below 2^31, 1 when they follow as little-endian float32; the block size;
 *   for each block: its last page id as the gap from the previous block's (the first from 0),
 *   the bytes of its entries, when p > 0 how many passage numbers it has, the number of pairs of
 *   its front, and those pairs (the frequency as the entries have it, then the length), highest
 *   frequency first;
 *   then each block's entries: the page ids as gaps (the first from the previous block's last
 *   page, or 0), the frequencies, and when p > 0 how many passage numbers each page has and the
 *   passage numbers (little-endian uint16).
 *
 * A page's length must be the one the index holds for it when the list is written; the writer
 * rewrites every list of a page whose length changes (postings-writer.ts).
 */

/** Entries in a block: Lucene's and PISA's size; a looked-up page unpacks at most this many. */
export const BLOCK = 128;
const FLOAT_FREQS = 1;

class Writer {
  bytes: Uint8Array;
  at = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(Math.max(16, size));
  }

  /** Empty again, keeping its buffer. */
  reset(): this {
    this.at = 0;
    return this;
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

  float(v: number): void {
    this.#room(4);
    new DataView(this.bytes.buffer).setFloat32(this.at, v, true);
    this.at += 4;
  }

  /** Little-endian uint16, as a typed array holds them on the platforms Node runs on. */
  places(values: Uint16Array): void {
    this.#room(2 * values.length);
    this.bytes.set(new Uint8Array(values.buffer, values.byteOffset, 2 * values.length), this.at);
    this.at += 2 * values.length;
  }

  done(): Uint8Array {
    return this.bytes.subarray(0, this.at);
  }
}

function wholeNumbers(freqs: Float32Array): boolean {
  for (let i = 0; i < freqs.length; i++) {
    const f = freqs[i] as number;
    if (!(Number.isInteger(f) && f >= 0 && f < 2 ** 31)) return false;
  }
  return true;
}

/** The directory and the entries as packBlocked() writes them, reused from list to list (most
 * lists are of one or two pages, and the postings step writes hundreds of thousands). */
const scratch = { head: new Writer(1 << 12), body: new Writer(1 << 16) };

/** The entries of `from` to `to` (exclusive) that no other beats on both a higher frequency and a
 * shorter page, highest frequency first (ties: the shorter page), each once. */
function front(freqs: Float32Array, lengths: readonly number[], from: number, to: number): [number, number][] {
  if (to - from === 1) return [[freqs[from] as number, lengths[0] as number]];
  const order: number[] = [];
  for (let i = from; i < to; i++) order.push(i);
  order.sort((a, b) => (freqs[b] as number) - (freqs[a] as number) || (lengths[a - from] as number) - (lengths[b - from] as number));
  const out: [number, number][] = [];
  let shortest = Infinity;
  for (const i of order) {
    const len = lengths[i - from] as number;
    if (len < shortest) {
      out.push([freqs[i] as number, len]);
      shortest = len;
    }
  }
  return out;
}

/** `list` in the blocked format; `lengthOf(id)`: the length the index holds for page `id`. */
export function packBlocked(list: PostingList, lengthOf: (id: number) => number, block = BLOCK): Uint8Array {
  const { docs, freqs, starts, places } = list;
  const n = docs.length;
  const p = places.length;
  const whole = wholeNumbers(freqs);
  const head = scratch.head.reset();
  const body = scratch.body.reset();
  head.varint(n);
  head.varint(p);
  head.varint(whole ? 0 : FLOAT_FREQS);
  head.varint(block);
  let last = 0;
  for (let from = 0; from < n; from += block) {
    const to = Math.min(n, from + block);
    const start = body.at;
    const lengths: number[] = [];
    for (let i = from; i < to; i++) {
      const d = docs[i] as number;
      if (i > 0 && d <= last) throw new Error(`posting list out of order: page ${d} after ${last}`);
      body.varint(d - last);
      last = d;
      const len = lengthOf(d);
      if (!(Number.isInteger(len) && len >= 0 && len < 2 ** 31)) throw new Error(`page ${d} has no length to bound its scores`);
      lengths.push(len);
    }
    for (let i = from; i < to; i++) (whole ? body.varint(freqs[i] as number) : body.float(freqs[i] as number));
    if (p) {
      for (let i = from; i < to; i++) body.varint((starts[i + 1] as number) - (starts[i] as number));
      body.places(places.subarray(starts[from], starts[to]));
    }
    const pairs = front(freqs, lengths, from, to);
    head.varint(last - (from ? (docs[from - 1] as number) : 0));
    head.varint(body.at - start);
    if (p) head.varint((starts[to] as number) - (starts[from] as number));
    head.varint(pairs.length);
    for (const [f, len] of pairs) {
      if (whole) head.varint(f);
      else head.float(f);
      head.varint(len);
    }
  }
  const out = new Uint8Array(head.at + body.at);
  out.set(head.done());
  out.set(body.done(), head.at);
  return out;
}

/** Reads varints from a buffer up to `end`, checking that they do not run past it. */
class Reader {
  readonly s: Uint8Array;
  readonly #view: DataView;
  at = 0;
  end: number;

  constructor(s: Uint8Array) {
    this.s = s;
    this.end = s.length;
    this.#view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  }

  varint(): number {
    const s = this.s;
    if (this.at >= this.end) throw new Error('blocked posting list ends early');
    let b = s[this.at++] as number;
    if (b < 0x80) return b;
    let v = b & 0x7f;
    for (let shift = 7; b >= 0x80 && shift <= 28; shift += 7) {
      b = s[this.at++] as number;
      v += (b & 0x7f) * 2 ** shift;
    }
    if (this.at > this.end) throw new Error('blocked posting list ends early');
    return v;
  }

  float(): number {
    if (this.at + 4 > this.end) throw new Error('blocked posting list ends early');
    const v = this.#view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }
}

/** A list in the blocked format, its blocks unpacked as they are looked into. */
export class BlockedList implements TermList {
  readonly df: number;
  readonly #s: Uint8Array;
  /** Reads the blocks as they are unpacked. */
  readonly #r: Reader;
  readonly #block: number;
  readonly #floats: boolean;
  readonly #p: number;
  /** Each block's last page id, where its entries start in #s (and, at nb, where they end), where
   * its passage numbers start among the list's, and where its front starts among the pairs. */
  readonly #lasts: Uint32Array;
  readonly #bodyAt: Uint32Array;
  readonly #placeAt: Uint32Array;
  readonly #frontAt: Uint32Array;
  readonly #frontFreqs: Float32Array;
  readonly #frontLengths: Uint32Array;
  /** The unpacked entries, filled a block at a time (allocated at the first). */
  #list: PostingList | null = null;
  readonly #unpacked: Uint8Array;
  #unpackedCount = 0;

  constructor(s: Uint8Array) {
    const r = new Reader(s);
    const n = r.varint();
    const p = r.varint();
    const flag = r.varint();
    const block = r.varint();
    if (n > s.length || p > s.length || flag > FLOAT_FREQS || (n && block < 1)) throw new Error('blocked posting list: a bad header');
    const nb = n ? Math.ceil(n / block) : 0;
    this.df = n;
    this.#s = s;
    this.#r = r;
    this.#block = block;
    this.#floats = flag === FLOAT_FREQS;
    this.#p = p;
    this.#lasts = new Uint32Array(nb);
    this.#bodyAt = new Uint32Array(nb + 1);
    this.#placeAt = new Uint32Array(nb + 1);
    this.#frontAt = new Uint32Array(nb + 1);
    this.#unpacked = new Uint8Array(nb);
    const freqs: number[] = [];
    const lengths: number[] = [];
    let last = 0;
    let bytes = 0;
    for (let b = 0; b < nb; b++) {
      last += r.varint();
      this.#lasts[b] = last;
      bytes += r.varint();
      this.#bodyAt[b + 1] = bytes;
      this.#placeAt[b + 1] = (this.#placeAt[b] as number) + (p ? r.varint() : 0);
      const pairs = r.varint();
      if (pairs > block) throw new Error('blocked posting list: a bad block front');
      for (let k = 0; k < pairs; k++) {
        freqs.push(this.#floats ? r.float() : r.varint());
        lengths.push(r.varint());
      }
      this.#frontAt[b + 1] = freqs.length;
    }
    if (this.#placeAt[nb] !== p) throw new Error('blocked posting list: its passage counts do not add up');
    if (r.at + bytes !== s.length) throw new Error(r.at + bytes > s.length ? 'blocked posting list ends early' : 'blocked posting list: bytes left over');
    for (let b = 0; b <= nb; b++) this.#bodyAt[b] = (this.#bodyAt[b] as number) + r.at;
    this.#frontFreqs = Float32Array.from(freqs);
    this.#frontLengths = Uint32Array.from(lengths);
  }

  get hasPlaces(): boolean {
    return this.#p > 0;
  }

  get bytes(): number {
    const blocks = this.#lasts.length;
    return this.#s.length + 16 * blocks + (blocks ? Math.round(((8 * this.df + 4 * this.#p) * this.#unpackedCount) / blocks) : 0);
  }

  all(): PostingList {
    for (let b = 0; b < this.#lasts.length; b++) if (!this.#unpacked[b]) this.#unpack(b);
    return this.#entries();
  }

  get blockSize(): number {
    return this.#block;
  }

  block(b: number): PostingList {
    if (!this.#unpacked[b]) this.#unpack(b);
    return this.#entries();
  }

  get unpacked(): boolean {
    return this.#unpackedCount === this.#lasts.length;
  }

  find(id: number): number {
    return this.findIn(this.blockOf(id), id);
  }

  findIn(b: number, id: number): number {
    if (b < 0) return -1;
    if (!this.#unpacked[b]) this.#unpack(b);
    const docs = (this.#list as PostingList).docs;
    let lo = b * this.#block;
    let hi = Math.min(this.df, lo + this.#block) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = docs[mid] as number;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  freq(i: number): number {
    return (this.#list as PostingList).freqs[i] as number;
  }

  places(i: number): Uint16Array {
    const { starts, places } = this.#list as PostingList;
    return starts.length ? places.subarray(starts[i], starts[i + 1]) : places;
  }

  cheapLookups(count: number): boolean {
    return this.#unpackedCount === this.#lasts.length ? count * Math.log2(this.df + 1) < this.df : count * this.#block < this.df;
  }

  blockBounds(score: (freq: number, length: number) => number): Float64Array {
    const nb = this.#lasts.length;
    const out = new Float64Array(nb);
    for (let b = 0; b < nb; b++) {
      let best = 0;
      for (let k = this.#frontAt[b] as number; k < (this.#frontAt[b + 1] as number); k++) {
        const x = score(this.#frontFreqs[k] as number, this.#frontLengths[k] as number);
        if (x > best) best = x;
      }
      out[b] = best;
    }
    return out;
  }

  blockOf(id: number): number {
    const lasts = this.#lasts;
    let lo = 0;
    let hi = lasts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((lasts[mid] as number) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < lasts.length ? lo : -1;
  }

  blocksOf(ids: Uint32Array): Int32Array {
    const out = new Int32Array(ids.length);
    const lasts = this.#lasts;
    // A binary search each, or one pass along the blocks where that costs less.
    if (ids.length * Math.log2(lasts.length + 1) < lasts.length + ids.length) {
      for (let i = 0; i < ids.length; i++) out[i] = this.blockOf(ids[i] as number);
      return out;
    }
    let b = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      while (b < lasts.length && (lasts[b] as number) < id) b++;
      out[i] = b < lasts.length ? b : -1;
    }
    return out;
  }

  #entries(): PostingList {
    if (this.#list) return this.#list;
    const n = this.df;
    const p = this.#p;
    // One buffer, as postings.ts's blob lays a list out.
    const buffer = new ArrayBuffer(8 * n + (p ? 4 * (n + 1) + 2 * p : 0));
    this.#list = {
      docs: new Uint32Array(buffer, 0, n),
      freqs: new Float32Array(buffer, 4 * n, n),
      starts: new Uint32Array(buffer, 8 * n, p ? n + 1 : 0),
      places: new Uint16Array(buffer, 8 * n + (p ? 4 * (n + 1) : 0), p),
    };
    return this.#list;
  }

  #unpack(b: number): void {
    const { docs, freqs, starts, places } = this.#entries();
    const s = this.#s;
    const from = b * this.#block;
    const to = Math.min(this.df, from + this.#block);
    const end = this.#bodyAt[b + 1] as number;
    const r = this.#r;
    r.at = this.#bodyAt[b] as number;
    r.end = end;
    // One-byte numbers (most of them) read here, the others by r.varint(); each loop reads at most
    // `to - from` numbers of at least a byte, so one check of the block's end covers them.
    if (r.at + 2 * (to - from) > end) throw new Error('blocked posting list: a block shorter than its entries');
    let at = r.at;
    let doc = b ? (this.#lasts[b - 1] as number) : 0;
    for (let i = from; i < to; i++) {
      let v = s[at++] as number;
      if (v >= 0x80) {
        r.at = at - 1;
        v = r.varint();
        at = r.at;
      } else if (v === 0 && i > 0) throw new Error('blocked posting list: pages out of order');
      docs[i] = doc += v;
    }
    if (doc !== this.#lasts[b]) throw new Error('blocked posting list: a block does not end where its directory says');
    r.at = at;
    if (this.#floats) for (let i = from; i < to; i++) freqs[i] = r.float();
    else {
      for (let i = from; i < to; i++) {
        let v = s[at++] as number;
        if (v >= 0x80) {
          r.at = at - 1;
          v = r.varint();
          at = r.at;
        }
        freqs[i] = v;
      }
      r.at = at;
    }
    if (this.#p) {
      let start = this.#placeAt[b] as number;
      starts[from] = start;
      for (let i = from; i < to; i++) starts[i + 1] = start += r.varint();
      const count = start - (this.#placeAt[b] as number);
      if (start !== this.#placeAt[b + 1] || r.at + 2 * count > end) throw new Error('blocked posting list: its passage counts do not add up');
      new Uint8Array(places.buffer, places.byteOffset + 2 * (this.#placeAt[b] as number), 2 * count).set(s.subarray(r.at, r.at + 2 * count));
      r.at += 2 * count;
    }
    if (r.at !== end) throw new Error('blocked posting list: a block does not end where its directory says');
    this.#unpacked[b] = 1;
    this.#unpackedCount++;
  }
}
