import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Text the index keeps only to read back whole, now and then (decision 0085): a page's text, for
 * when its postings are built again, and the list of its terms, for when it changes. Raw deflate at
 * level 1: about a third of the bytes, in tens of microseconds a page either way.
 */
export function packText(text: string): Uint8Array {
  return deflateRawSync(text, { level: 1 });
}

export function unpackText(packed: Uint8Array): string {
  return inflateRawSync(packed).toString('utf8');
}
