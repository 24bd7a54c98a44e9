/**
 * A bit signature of a set of words: two bits a word, taken from its FNV-1a hash, so that most
 * words the set does not hold are answered from a few bytes without reading the words; a word it
 * may hold is looked for in the words themselves. Ranking keeps one of each candidate's title,
 * address and headings (rank.ts); the index stores one of each page's words near its index anchors
 * (near-anchors.ts, decision 0155).
 *
 * Bit i is bit i & 7 of byte i >> 3, so a stored signature reads the same on any machine; a
 * signature's length in bytes is a power of two, and its bits are the hash's bits below it.
 */
export type WordSignature = Uint8Array;

/** FNV-1a over a word's UTF-16 code units. */
export function wordHash(word: string): number {
  let h = FNV_BASIS;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}
const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SPACE = 32;

/** Sets the signature's two bits of each word of `line` (words split by single spaces), each
 * hashed as wordHash() hashes it, as the line is read: no word is cut out of it. */
export function signLine(signature: WordSignature, line: string): void {
  const mask = (signature.length << 3) - 1;
  let h = FNV_BASIS;
  let length = 0;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : SPACE;
    if (c !== SPACE) {
      h = Math.imul(h ^ c, FNV_PRIME);
      length++;
      continue;
    }
    if (length) {
      const a = h & mask;
      const b = (h >>> 16) & mask;
      signature[a >>> 3] = (signature[a >>> 3] as number) | (1 << (a & 7));
      signature[b >>> 3] = (signature[b >>> 3] as number) | (1 << (b & 7));
    }
    h = FNV_BASIS;
    length = 0;
  }
}

/** Whether the signature may hold the word of hash `h` (wordHash()): false only if it does not. */
export function mayHold(signature: WordSignature, h: number): boolean {
  const mask = (signature.length << 3) - 1;
  const a = h & mask;
  const b = (h >>> 16) & mask;
  return (((signature[a >>> 3] as number) >>> (a & 7)) & ((signature[b >>> 3] as number) >>> (b & 7)) & 1) === 1;
}

/**
 * The signature of `words` (distinct), sixteen bits a word (a word not held passes about one time
 * in seventy) between 64 bits and `most` (a power of two, at least 64), where a page of many words
 * passes more.
 */
export function signatureOf(words: readonly string[], most: number): WordSignature {
  let bits = 64;
  while (bits < most && bits < words.length * 16) bits *= 2;
  const signature = new Uint8Array(bits >>> 3);
  signLine(signature, words.join(' '));
  return signature;
}
