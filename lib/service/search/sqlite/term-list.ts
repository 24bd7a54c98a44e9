import { indexIn } from '../sorted.ts';
import type { PostingList } from './postings.ts';

/**
 * A term's posting list as a query reads it (decision 0089). The index stores a list in blocks
 * (blocked-postings.ts) that a query unpacks only where it looks: a page looked up unpacks the
 * one block that would hold it, and each block says, without being unpacked, at most how much it
 * can add to a page's score. A list from an index of an earlier format is read whole (WholeList).
 *
 * Entries are numbered 0 to df − 1 in ascending page order, across blocks.
 */
export interface TermList {
  /** How many pages hold the term. */
  readonly df: number;
  /** Whether the list keeps each page's passage numbers. */
  readonly hasPlaces: boolean;
  /** About how many bytes it holds in memory now (it grows as blocks are unpacked). */
  readonly bytes: number;
  /** Every entry, unpacked (once). */
  all(): PostingList;
  /** Entries in a block (the last may hold fewer): block b holds entries b × blockSize onward. */
  readonly blockSize: number;
  /** The list's arrays with block `b`'s entries unpacked (others may not be yet). */
  block(b: number): PostingList;
  /** The number of the entry of page `id`, or -1. */
  find(id: number): number;
  /** find() for a page that block `b` would hold (blockOf()). */
  findIn(b: number, id: number): number;
  /** Whether every block is unpacked (then looking a page up unpacks nothing). */
  readonly unpacked: boolean;
  /** The weighted frequency of entry `i` (found by find() or in all()). */
  freq(i: number): number;
  /** The passage numbers of entry `i`. */
  places(i: number): Uint16Array;
  /** Whether looking `count` pages up one by one (find) costs less than walking all(). */
  cheapLookups(count: number): boolean;
  /** Each block's highest value of `score(frequency, page length)` over its entries, for a
   * `score` that grows with the frequency and falls with the length (BM25's term weight); null
   * when the list has no blocks with bounds (WholeList). */
  blockBounds(score: (freq: number, length: number) => number): Float64Array | null;
  /** The block that would hold page `id` (its number, for blockBounds()), or -1 past the last. */
  blockOf(id: number): number;
  /** blockOf() of each of `ids`, in ascending order. */
  blocksOf(ids: Uint32Array): Int32Array;
}

/** A list read whole: from an index of a format before decision 0089, or built in memory. */
export class WholeList implements TermList {
  readonly #list: PostingList;

  constructor(list: PostingList) {
    this.#list = list;
  }

  get df(): number {
    return this.#list.docs.length;
  }

  get hasPlaces(): boolean {
    return this.#list.starts.length > 0;
  }

  get bytes(): number {
    return this.#list.docs.buffer.byteLength;
  }

  all(): PostingList {
    return this.#list;
  }

  /** One block of every entry. */
  get blockSize(): number {
    return Math.max(1, this.df);
  }

  block(): PostingList {
    return this.#list;
  }

  find(id: number): number {
    return indexIn(this.#list.docs, id);
  }

  findIn(b: number, id: number): number {
    return b < 0 ? -1 : this.find(id);
  }

  get unpacked(): boolean {
    return true;
  }

  freq(i: number): number {
    return this.#list.freqs[i] as number;
  }

  places(i: number): Uint16Array {
    const { starts, places } = this.#list;
    return starts.length ? places.subarray(starts[i], starts[i + 1]) : places;
  }

  cheapLookups(count: number): boolean {
    return count * Math.log2(this.df + 1) < this.df;
  }

  blockBounds(): null {
    return null;
  }

  blockOf(id: number): number {
    const { docs } = this.#list;
    return docs.length && id <= (docs[docs.length - 1] as number) ? 0 : -1;
  }

  blocksOf(ids: Uint32Array): Int32Array {
    return Int32Array.from(ids, (id) => this.blockOf(id));
  }
}
