/**
 * Canonical addresses: every address a page is known under is normalised the same way, so that
 * variants a crawl collects (scheme, host case, default port, fragment, tracking parameters)
 * collapse into one page.
 */

const TRACKING_PARAMS =
  /^(utm_[a-z0-9_]*|gclid|gclsrc|dclid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi|mkt_tok|igshid|oly_anon_id|oly_enc_id|vero_id|wickedid|ref_src)$/i;

/** The normalised form of an absolute http(s) address, or null if it is not one. */
export function normalizeUrl(input: string, base?: string): string | null {
  let u: URL;
  try {
    u = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  // URL already lower-cases the scheme and host and drops default ports (80 for http, 443 for https).
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.slice(0, -1);
  const kept = [...u.searchParams.entries()].filter(([k]) => !TRACKING_PARAMS.test(k));
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  u.search = kept.length ? new URLSearchParams(kept).toString() : '';
  return u.href;
}

/**
 * The identity of a page: its normalised address without the scheme, so that the http and https
 * fetches of one address are one page, and with a directory's `index.html` as the directory.
 */
export function urlKey(normalized: string): string {
  return normalized.replace(/^https?:\/\//, '').replace(/\/index\.html?(?=$|\?)/, '/');
}

/** Of two normalised addresses of one page, the one to show: https beats http. */
export function preferredUrl(a: string, b: string): string {
  if (a.startsWith('https:') !== b.startsWith('https:')) return a.startsWith('https:') ? a : b;
  return a;
}

/** The registrable part of a host, approximated by its last two labels (three under a two-letter
 * second-level domain such as co.uk). Good enough to tell sites apart without a suffix list. */
export function siteOf(host: string): string {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  if (/^\d+$/.test(labels.at(-1) ?? '') || labels.length <= 2) return labels.join('.');
  const second = labels.at(-2) ?? '';
  const keep =
    second.length <= 3 && (labels.at(-1) ?? '').length === 2 && ['co', 'com', 'ac', 'org', 'net', 'gov', 'edu'].includes(second) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

export function sameSite(a: string, b: string): boolean {
  try {
    return siteOf(new URL(a).hostname) === siteOf(new URL(b).hostname);
  } catch {
    return false;
  }
}

/** The words of an address that a searcher may type: host labels and path segments, without the
 * file extension. */
export function urlWords(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^www\./, '');
    const path = decodeURIComponent(u.pathname).replace(/\.(html?|php|aspx?|jsp)$/i, '');
    return `${host} ${path.split('/').filter(Boolean).join(' ')}`;
  } catch {
    return '';
  }
}

const LANGS = new Set(
  'af am ar az be bg bn bs ca cs cy da de el en eo es et eu fa fi fr ga gl gu he hi hr hu hy id is it ja ka kk km kn ko ku ky lo lt lv mk ml mn mr ms my nb ne nl nn no pa pl ps pt ro ru si sk sl so sq sr sv sw ta te th tl tr uk ur uz vi zh'.split(
    ' ',
  ),
);

const languageTag = (lang: string, region: string | undefined) => (region ? `${lang}-${region.toUpperCase()}` : lang);

/**
 * A language tag (`de`, `pt-BR`, `zh-CN`) named by the address itself, as sites that publish translations commonly do:
 * a path segment such as `de`, `pt-BR` or `zh_CN`, or a file name such as `intro.fr.html`.
 */
export function urlLanguage(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const segments = path.split('/').filter(Boolean);
  for (const s of segments) {
    const m = /^([a-z]{2})(?:[-_]([A-Za-z]{2,4}))?$/.exec(s);
    if (m && LANGS.has(m[1] as string)) return languageTag(m[1] as string, m[2]);
  }
  const file = /\.([a-z]{2})(?:[-_]([A-Za-z]{2,4}))?\.html?$/.exec(segments.at(-1) ?? '');
  if (file && LANGS.has(file[1] as string)) return languageTag(file[1] as string, file[2]);
  return null;
}
