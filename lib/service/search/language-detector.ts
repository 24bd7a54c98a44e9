/**
 * The `eld` n-gram language detector (its "medium" data, 60 languages), computed over packed tables:
 * the same answer as `eld.detect(text).language` for every text, about six times faster (decision
 * 0125). Reading a page was bound by its parsing threads, and eld was 45 % of them: it collects a
 * text's byte n-grams as the keys of an object, and adds up each one's scores with `for…in` over an
 * object with integer keys, about 200 µs a chunk.
 *
 * This module reads eld's own data files (the version is pinned in package.json: the paths and the
 * arithmetic below are those of eld 2.1.0) and keeps each n-gram's scores in typed arrays, found
 * through an open-addressing table keyed by the n-gram's bytes as a number. Its steps are eld's,
 * each named after the function of eld's it follows; language-detector.test.ts compares the two
 * on every script and on the texts eld's edge cases come from.
 */

type NgramsData = { type: string; languages: Record<string, string>; ngrams: Record<string, Record<string, number>> };

// eld's exports name no data file: they are found beside the entry that loads them.
const entry = import.meta.resolve('eld/medium');
const { ngramsData } = (await import(new URL('../ngrams/medium.js', entry).href)) as { ngramsData: NgramsData };
const { dictionary } = (await import(new URL('../dictionary.js', entry).href)) as { dictionary: readonly string[] };
const { separators } = (await import(new URL('../regexPatterns.js', entry).href)) as { separators: RegExp };

/** eld keeps scores less this, to make its data smaller (calculateScores). */
const BASE_NGRAM_SCORE = 53;
/** eld reads the first 1000 characters of a text (detect) and of those about 380 bytes
 * (strToUtf8Bytes: it stops at a space once past 350, and anywhere past 380). */
const READS = 1000;
const CUT_AFTER = 350;
const ENFORCE_CUT_AFTER = 380;
/** eld caps a word at 70 bytes for its n-grams (getByteNgrams). */
const MAX_WORD = 70;
/** An n-gram of eld's data is at most 6 characters: a space, 4 bytes, a space. */
const MAX_NGRAM = 6;
const SPACE = 0x20;

if (ngramsData.type !== 'M60' || dictionary.length !== 256)
  throw new Error(`eld's data is not the one this detector was written for (${ngramsData.type}): see language-detector.ts`);

/** Each byte as the character eld's dictionary stands it for, all of them below 256. */
const BYTE = Uint8Array.from(dictionary, (c) => {
  if (c.length !== 1 || c.charCodeAt(0) > 0xff) throw new Error(`eld's dictionary has ${JSON.stringify(c)}: see language-detector.ts`);
  return c.charCodeAt(0);
});
const LANGUAGES: readonly string[] = Object.keys(ngramsData.languages).map((k, i) => {
  if (Number(k) !== i) throw new Error(`eld's languages are not numbered in order: see language-detector.ts`);
  return ngramsData.languages[k] as string;
});

/** An n-gram of eld's data (at most 6 characters below 256) as one number: a leading 1, then a
 * byte each. */
function keyOf(ngram: string): number {
  if (ngram.length > MAX_NGRAM) throw new Error(`eld has the n-gram ${JSON.stringify(ngram)}: see language-detector.ts`);
  let key = 1;
  for (let i = 0; i < ngram.length; i++) {
    const c = ngram.charCodeAt(i);
    if (c > 0xff) throw new Error(`eld has the n-gram ${JSON.stringify(ngram)}: see language-detector.ts`);
    key = key * 256 + c;
  }
  return key;
}

/** Open addressing over the keys: 105,548 n-grams in 2¹⁸ slots. */
const SLOTS = 1 << 18;
const slotKey = new Float64Array(SLOTS);
const slotId = new Int32Array(SLOTS).fill(-1);
function slotOf(key: number): number {
  const low = key >>> 0;
  const high = Math.floor(key / 0x1_0000_0000);
  return Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) >>> 14;
}

/** N-gram `id`'s scores: (language, score + BASE_NGRAM_SCORE) pairs from `start[id]` to `start[id + 1]`. */
const { start, pairs } = (() => {
  const starts = [0];
  const flat: number[] = [];
  for (const ngram of Object.keys(ngramsData.ngrams)) {
    const scores = ngramsData.ngrams[ngram] as Record<string, number>;
    const key = keyOf(ngram);
    let slot = slotOf(key);
    while ((slotId[slot] as number) >= 0) slot = (slot + 1) & (SLOTS - 1);
    slotKey[slot] = key;
    slotId[slot] = starts.length - 1;
    for (const lang of Object.keys(scores)) flat.push(Number(lang), (scores[lang] as number) + BASE_NGRAM_SCORE);
    starts.push(flat.length);
  }
  return { start: Int32Array.from(starts), pairs: Int32Array.from(flat) };
})();

// One text at a time, in this thread: the bytes of its words, its scores, and the n-grams it has
// counted (an n-gram counts once a text: marked with the text's number).
const bytes = new Uint8Array(ENFORCE_CUT_AFTER + 8);
const scores = new Float64Array(LANGUAGES.length);
const counted = new Int32Array(start.length - 1);
let textNumber = 0;

/** Adds an n-gram's scores, once a text (calculateScores). */
function count(key: number): void {
  let slot = slotOf(key);
  let id: number;
  for (;;) {
    id = slotId[slot] as number;
    if (id < 0) return;
    if (slotKey[slot] === key) break;
    slot = (slot + 1) & (SLOTS - 1);
  }
  if (counted[id] === textNumber) return;
  counted[id] = textNumber;
  for (let i = start[id] as number, end = start[id + 1] as number; i < end; i += 2)
    (scores[pairs[i] as number] as number) += pairs[i + 1] as number;
}

/** The n-grams of the word in bytes[from, to) (getByteNgrams): 4 bytes with a stride of 3, a space
 * before the first and after the last. */
function countWord(from: number, to: number): void {
  const len = Math.min(to - from, MAX_WORD);
  let j = 0;
  for (; j + 4 < len; j += 3) {
    let key = j === 0 ? 256 + SPACE : 1;
    for (let i = from + j; i < from + j + 4; i++) key = key * 256 + (bytes[i] as number);
    count(key);
  }
  // The last runs from 4 bytes before the cap (or the word's start) to the word's end, past the
  // cap: eld's substring has no end. One longer than an n-gram of its data counts nothing.
  const tail = from + (len !== 3 ? Math.max(len - 4, 0) : 0);
  if ((j === 0 ? 1 : 0) + (to - tail) + 1 > MAX_NGRAM) return;
  let key = j === 0 ? 256 + SPACE : 1;
  for (let i = tail; i < to; i++) key = key * 256 + (bytes[i] as number);
  count(key * 256 + SPACE);
}

/** The language eld detects in `text` (an ISO 639-1 code), or '' for none. */
export function detectLanguage(text: string): string {
  // textProcessor: separators to spaces, trimmed, lower case.
  const str = text.substring(0, READS).replace(separators, ' ').trim().toLowerCase();
  // A new number a text (the marks start again before the numbers run out).
  if (++textNumber === 0x7fff_ffff) {
    counted.fill(0);
    textNumber = 1;
  }
  scores.fill(0);
  // strToUtf8Bytes: UTF-8, each byte as its dictionary character, split at spaces; each word's
  // n-grams are counted as it ends.
  let n = 0;
  let word = 0;
  let read = 0;
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) {
      if (c === SPACE) {
        if (n > word) countWord(word, n);
        word = n;
        if (read > CUT_AFTER) break;
      } else bytes[n++] = c;
      read++;
    } else if (c < 0x800) {
      bytes[n++] = BYTE[0xc0 | (c >> 6)] as number;
      bytes[n++] = BYTE[0x80 | (c & 0x3f)] as number;
      read += 2;
    } else if (c < 0xd800 || c >= 0xe000) {
      bytes[n++] = BYTE[0xe0 | (c >> 12)] as number;
      bytes[n++] = BYTE[0x80 | ((c >> 6) & 0x3f)] as number;
      bytes[n++] = BYTE[0x80 | (c & 0x3f)] as number;
      read += 3;
    } else {
      // A surrogate, as eld has it (it takes the next unit as its pair, whatever it is). None comes
      // here: eld's separators are every code point but the letters of the BMP.
      i++;
      c = 0x10000 + (((c & 0x3ff) << 10) | (str.charCodeAt(i) & 0x3ff));
      bytes[n++] = BYTE[0xf0 | (c >> 18)] as number;
      bytes[n++] = BYTE[0x80 | ((c >> 12) & 0x3f)] as number;
      bytes[n++] = BYTE[0x80 | ((c >> 6) & 0x3f)] as number;
      bytes[n++] = BYTE[0x80 | (c & 0x3f)] as number;
      read += 4;
    }
    if (read > ENFORCE_CUT_AFTER) break;
  }
  if (n > word) countWord(word, n);
  // getMaxLang: the first of the highest scores above 0.
  let best = -1;
  let max = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s > 0 && s > max) {
      max = s;
      best = i;
    }
  }
  return best < 0 ? '' : (LANGUAGES[best] as string);
}
