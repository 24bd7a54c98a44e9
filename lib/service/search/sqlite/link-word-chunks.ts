/**
 * Link words (decisions 0081, 0082) kept as one row a word for each run of CHUNK_PAGES page ids
 * (`link_word_chunks`, decision 0120), where `link_words` kept a row a word and page: a fifth of the
 * rows, no index by page, and a page found in its word's row by a binary search.
 *
 * A row's `data`, little-endian, for n pages of the chunk in ascending order:
 *   n (uint16); each page's offset in the chunk (n uint16); each page's mask (n int32); where each
 *   page's blocks start among the blocks (n + 1 uint32); the blocks (uint16 each, ascending for
 *   each page).
 */

/** Page ids of a chunk: id >>> CHUNK_BITS is its number. */
export const CHUNK_BITS = 10;
export const CHUNK_PAGES = 1 << CHUNK_BITS;

export const chunkOf = (id: number): number => id >>> CHUNK_BITS;

/** A page's entry in a word's row: its mask and the blocks of text that hold the word. */
export type ChunkEntry = { id: number; mask: number; blocks: Uint16Array };

/** The row of `entries` (of one chunk, in ascending id order, each page once). */
export function packChunk(entries: readonly ChunkEntry[]): Uint8Array {
  const n = entries.length;
  if (n > CHUNK_PAGES) throw new Error(`a chunk holds ${CHUNK_PAGES} pages at most, not ${n}`);
  let total = 0;
  for (const e of entries) total += e.blocks.length;
  const head = 2 + 2 * n + 4 * n + 4 * (n + 1);
  const out = new Uint8Array(head + 2 * total);
  const view = new DataView(out.buffer);
  view.setUint16(0, n, true);
  const chunk = n ? chunkOf((entries[0] as ChunkEntry).id) : 0;
  let last = -1;
  let start = 0;
  entries.forEach((e, i) => {
    if (e.id <= last || chunkOf(e.id) !== chunk)
      throw new Error(`link word entries out of order or of another chunk: page ${e.id} after ${last}`);
    last = e.id;
    view.setUint16(2 + 2 * i, e.id & (CHUNK_PAGES - 1), true);
    view.setInt32(2 + 2 * n + 4 * i, e.mask, true);
    view.setUint32(2 + 6 * n + 4 * i, start, true);
    for (let j = 0; j < e.blocks.length; j++) view.setUint16(head + 2 * (start + j), e.blocks[j] as number, true);
    start += e.blocks.length;
  });
  view.setUint32(2 + 6 * n + 4 * n, start, true);
  return out;
}

/** A word's row of one chunk, read where it is: a page's mask and blocks by binary search. */
export class ChunkRow {
  readonly #view: DataView;
  readonly #base: number;
  readonly #n: number;
  readonly #head: number;

  /** `data`: a row packChunk() made; `chunk`: its number. */
  constructor(data: Uint8Array, chunk: number) {
    this.#view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.#base = chunk << CHUNK_BITS;
    const n = data.byteLength >= 2 ? this.#view.getUint16(0, true) : -1;
    const head = 2 + 10 * n + 4;
    if (n < 0 || data.byteLength < head) throw new Error('link word row ends early');
    this.#n = n;
    this.#head = head;
    const blocks = this.#view.getUint32(2 + 10 * n, true);
    if (data.byteLength !== head + 2 * blocks) throw new Error('link word row: its length does not match its blocks');
  }

  get size(): number {
    return this.#n;
  }

  /** Where page `id` is in the row, or −1. */
  find(id: number): number {
    const want = id - this.#base;
    if (want < 0 || want >= CHUNK_PAGES) return -1;
    let lo = 0;
    let hi = this.#n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.#view.getUint16(2 + 2 * mid, true);
      if (at === want) return mid;
      if (at < want) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  id(i: number): number {
    return this.#base + this.#view.getUint16(2 + 2 * i, true);
  }

  mask(i: number): number {
    return this.#view.getInt32(2 + 2 * this.#n + 4 * i, true);
  }

  /** The blocks of the i-th page, ascending (a copy). */
  blocks(i: number): Uint16Array {
    const from = this.#view.getUint32(2 + 6 * this.#n + 4 * i, true);
    const to = this.#view.getUint32(2 + 6 * this.#n + 4 * (i + 1), true);
    const out = new Uint16Array(to - from);
    for (let j = 0; j < out.length; j++) out[j] = this.#view.getUint16(this.#head + 2 * (from + j), true);
    return out;
  }

  /** Every entry, in ascending id order. */
  entries(): ChunkEntry[] {
    return Array.from({ length: this.#n }, (_, i) => ({ id: this.id(i), mask: this.mask(i), blocks: this.blocks(i) }));
  }
}
