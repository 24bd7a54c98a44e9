import { eld } from 'eld/medium';

/**
 * Language of a page's text, detected locally (the `eld` n-gram detector, whose data ships inside
 * the package: nothing is downloaded). Pages are often partly translated, so the text is detected
 * in chunks and the result is the share of the text in each language, not one label.
 */
export type LanguageShares = Record<string, number>;

const CHUNK = 500;
const MAX_CHUNKS = 16;
const MIN_LETTERS = 30;

/** Codes the detector may give that searchers write differently, and near-identical languages. */
const ALIAS: Record<string, string> = { no: 'nb', nn: 'nb', ms: 'id' };

export function normalizeLanguage(code: string): string {
  const c = code.toLowerCase().slice(0, 2);
  return ALIAS[c] ?? c;
}

/** A language tag with its primary subtag normalised and its region in upper case: `pt-BR`, `zh-CN`. */
export function normalizeTag(tag: string): string {
  const [primary = '', region] = tag.split(/[-_]/);
  const lang = normalizeLanguage(primary);
  return region && /^[a-z]{2}$/i.test(region) ? `${lang}-${region.toUpperCase()}` : lang;
}

/** The primary language of a tag. */
export const primaryLanguage = (tag: string) => normalizeLanguage(tag.split(/[-_]/)[0] ?? '');

/**
 * The region a bare language code most likely means (CLDR likely subtags): `zh` is Simplified
 * Chinese as written in China, `pt` is Brazilian. Used only to break ties between regional variants.
 */
const LIKELY_REGION: Record<string, string> = { zh: 'CN', pt: 'BR', en: 'US', es: 'ES', fr: 'FR', de: 'DE', nb: 'NO', sv: 'SE', nl: 'NL', ar: 'EG', sr: 'RS' };

export function isLikelyRegion(tag: string): boolean {
  const [primary = '', region] = tag.split('-');
  return !!region && LIKELY_REGION[primary] === region;
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
    const code = eld.detect(chunk.slice(0, 2 * CHUNK)).language;
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
