import { eld } from 'eld/medium';
import { normalizeLanguage, type LanguageShares } from './language-tags.ts';

/**
 * Language of a page's text, detected locally (the `eld` n-gram detector, whose data ships inside
 * the package: nothing is downloaded). Pages are often partly translated, so the text is detected
 * in chunks and the result is the share of the text in each language, not one label.
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
    code = eld.detect(text).language;
    if (detected.size >= REMEMBERED) detected.delete(detected.keys().next().value as string);
    detected.set(text, code);
  }
  return code;
}

function letters(s: string): number {
  return s.replace(/\P{L}+/gu, '').length;
}

/** CJK characters weigh as a word each (about 3 letters) when chunks are weighed. */
function cjk(s: string): number {
  return s.replace(/[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu, '').length;
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
    const n = letters(chunk);
    if (n < MIN_LETTERS) continue;
    const code = languageOf(chunk);
    if (!code) continue;
    const lang = normalizeLanguage(code);
    const w = n + 2 * cjk(chunk);
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
