import { detectLanguage } from './language-detector.ts';
import { normalizeLanguage, type LanguageShares } from './language-tags.ts';

/**
 * Language of a page's text, detected locally (the `eld` n-gram detector, whose data ships inside
 * the package: nothing is downloaded; language-detector.ts computes its answer faster). Pages are
 * often partly translated, so the text is detected in chunks and the result is the share of the
 * text in each language, not one label.
 */
const CHUNK = 500;
const MAX_CHUNKS = 16;
const MIN_LETTERS = 30;
/** What eld reads of a text (it reads no further). */
const ELD_READS = 1000;
/** Chunks whose language is remembered: a site's pages repeat blocks (a footer, a notice, a
 * licence), and on the corpus 29 % of the chunks detected had been detected before. */
const REMEMBERED = 4096;

/** The language eld detects in a chunk ('' for none), remembered for chunks met again. */
const detected = new Map<string, string>();
function languageOf(chunk: string): string {
  const text = chunk.slice(0, ELD_READS);
  let code = detected.get(text);
  if (code === undefined) {
    code = detectLanguage(text);
    if (detected.size >= REMEMBERED) detected.delete(detected.keys().next().value as string);
    detected.set(text, code);
  }
  return code;
}

const LETTER = /^\p{L}$/u;
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const IS_LETTER = 1;
const IS_CJK = 2;
/** What each code unit of the BMP is, of the two above (surrogates are neither: see weigh). */
const KIND = (() => {
  const kind = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c < 0xe000) continue;
    const s = String.fromCharCode(c);
    kind[c] = (LETTER.test(s) ? IS_LETTER : 0) | (CJK.test(s) ? IS_CJK : 0);
  }
  return kind;
})();

/**
 * A chunk's letters (`\p{L}`, in UTF-16 code units) and its CJK characters, which weigh as a word
 * each (about 3 letters) when chunks are weighed. One pass through a table of the BMP; a surrogate
 * pair is looked up as the code point it makes, and a lone surrogate is neither.
 */
export function weigh(s: string): { letters: number; cjk: number } {
  let letters = 0;
  let cjk = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c >= 0xe000) {
      const kind = KIND[c] as number;
      letters += kind & IS_LETTER;
      cjk += kind >> 1;
    } else if (c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const pair = s.slice(i, i + 2);
      if (LETTER.test(pair)) letters += 2;
      if (CJK.test(pair)) cjk += 2;
      i++;
    }
  }
  return { letters, cjk };
}

/** Group text blocks into chunks of about CHUNK characters, sampled evenly across the page. */
function chunks(blocks: readonly string[]): string[] {
  const out: string[] = [];
  let cur = '';
  for (const b of blocks) {
    cur = cur ? `${cur}\n${b}` : b;
    if (cur.length >= CHUNK) {
      out.push(cur);
      cur = '';
    }
  }
  if (cur) out.push(cur);
  if (out.length <= MAX_CHUNKS) return out;
  const step = out.length / MAX_CHUNKS;
  return Array.from({ length: MAX_CHUNKS }, (_, i) => out[Math.floor(i * step)] as string);
}

/** The share of the text in each language (summing to 1), or {} if no language could be told. */
export function detectLanguages(blocks: readonly string[]): LanguageShares {
  const totals: Record<string, number> = {};
  let sum = 0;
  for (const chunk of chunks(blocks)) {
    const { letters, cjk } = weigh(chunk);
    if (letters < MIN_LETTERS) continue;
    const code = languageOf(chunk);
    if (!code) continue;
    const lang = normalizeLanguage(code);
    const w = letters + 2 * cjk;
    totals[lang] = (totals[lang] ?? 0) + w;
    sum += w;
  }
  const shares: LanguageShares = {};
  if (!sum) return shares;
  for (const [lang, w] of Object.entries(totals)) {
    const share = w / sum;
    if (share >= 0.05) shares[lang] = Math.round(share * 1000) / 1000;
  }
  return shares;
}

/** The language with the largest share, or null. */
export function dominantLanguage(shares: LanguageShares): string | null {
  let best: string | null = null;
  let bestShare = 0;
  for (const [lang, share] of Object.entries(shares)) {
    if (share > bestShare) {
      best = lang;
      bestShare = share;
    }
  }
  return best;
}
