import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Text the index keeps only to read back whole, now and then (decision 0085): the list of a page's
 * terms, read when the page changes (the terms it held lose it). Raw deflate at level 1: about
 * half the bytes of a list, in tens of microseconds a page either way.
 */
export function packText(text: string): Uint8Array {
  return deflateRawSync(text, { level: 1 });
}

export function unpackText(packed: Uint8Array): string {
  return inflateRawSync(packed).toString('utf8');
}
