/**
 * Language codes and tags, apart from the detector (language.ts) and its data, so that the query
 * path loads neither.
 */
export type LanguageShares = Record<string, number>;

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

/** What a page is written in, as two letters: its markup's language when it declares one (as
 * decision 0013 reads a page), else the language most of its text is in; null when neither says. */
export function pageLanguage(shares: LanguageShares, markupLang: string | null): string | null {
  if (markupLang) return primaryLanguage(markupLang) || null;
  let best: string | null = null;
  let most = 0;
  for (const [code, share] of Object.entries(shares)) if (share > most) [best, most] = [code, share];
  return best;
}

/**
 * The region a bare language code most likely means (CLDR likely subtags): `zh` is Simplified
 * Chinese as written in China, `pt` is Brazilian. Used only to break ties between regional variants.
 */
const LIKELY_REGION: Record<string, string> = {
  zh: 'CN',
  pt: 'BR',
  en: 'US',
  es: 'ES',
  fr: 'FR',
  de: 'DE',
  nb: 'NO',
  sv: 'SE',
  nl: 'NL',
  ar: 'EG',
  sr: 'RS',
};

export function isLikelyRegion(tag: string): boolean {
  const [primary = '', region] = tag.split('-');
  return !!region && LIKELY_REGION[primary] === region;
}
