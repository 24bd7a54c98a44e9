import type { FetchedPage } from './backend.ts';
import { extractHtml, type Described } from './extract.ts';
import { detectLanguages, dominantLanguage } from './language.ts';
import { normalizeTag, primaryLanguage, type LanguageShares } from './language-tags.ts';
import { type DefinedHead, pageDefinitions } from './page-definitions.ts';
import { UnparseablePage } from './unparseable-page.ts';
import { normalizeUrl, sameSite, urlKey, urlLanguage } from './url.ts';

/** A page ready for any index engine. */
export type PageDocument = {
  /** Canonical address to show, and its scheme-less identity. */
  url: string;
  key: string;
  /** Identities of every address this fetch names: the fetched one and the canonical one. */
  aliasKeys: string[];
  title: string;
  description: string;
  headings: string[];
  terms: string[];
  /** Definition-list terms with the first words of their descriptions (extract.ts). */
  described: Described[];
  blocks: string[];
  /** Language of the page: the markup's when it says, else the one most of the text is in. */
  lang: string | null;
  langShares: LanguageShares;
  /** Language tags (`pt-BR`) declared by the markup and by the address. */
  markupLang: string | null;
  urlLang: string | null;
  /** `context`: the words around the link (extract.ts linkContext), of every place it stands. */
  links: { key: string; text: string; context: string }[];
  /** What the page defines, and how it marks it (page-definitions.ts): from its terms, those of
   * them and the headings it marks as index targets (index-marks.ts), and the first words of the
   * blocks index anchors open (extract.ts). */
  defines: DefinedHead[];
  /** The words near index anchors (extract.ts). */
  nearAnchors: string[];
  /** Manual › chapter › section, outermost first; [] when unknown (trail.ts). */
  section: string[];
  /** The icon the page declares for its site, resolved; null when none. */
  icon: string | null;
};

const MAX_HTML = 8 * 1024 * 1024;

/**
 * rel=canonical is followed on the same site only, and not across languages: a translation is not
 * a duplicate of the original, so a page whose address names a language keeps its own address when
 * its canonical link names another language or none (a site-wide language-neutral address).
 */
export function honoredCanonical(canonical: string | null, fetched: string): string {
  if (!canonical || !sameSite(canonical, fetched)) return fetched;
  const own = urlLanguage(fetched);
  if (own && urlLanguage(canonical) !== own) return fetched;
  // `dir/` declared by `dir/index.html`: one page; show the address known to serve it.
  if (urlKey(canonical) === urlKey(fetched)) return fetched;
  return canonical;
}

export function buildDocument(page: FetchedPage): PageDocument {
  const fetched = normalizeUrl(page.url);
  if (!fetched) throw new UnparseablePage(page.url, 'not an absolute http(s) address');
  if (page.html.length > MAX_HTML) throw new UnparseablePage(page.url, `larger than ${MAX_HTML} characters`);
  // Binary content decoded as text is full of NULs and replacement characters.
  const sample = page.html.slice(0, 4096);
  let junk = 0;
  for (let i = 0; i < sample.length; i++) if (sample.charCodeAt(i) === 0 || sample.charCodeAt(i) === 0xfffd) junk++;
  if (junk > sample.length / 20) throw new UnparseablePage(page.url, 'not text (binary content)');
  let x;
  try {
    x = extractHtml(page.html, fetched);
  } catch (err) {
    throw new UnparseablePage(page.url, `HTML could not be parsed (${(err as Error).message})`);
  }
  if (!x.title && !x.blocks.length) throw new UnparseablePage(page.url, 'no title and no text');
  const canonical = honoredCanonical(x.canonical, fetched);
  const key = urlKey(canonical);
  const langShares = detectLanguages(x.title ? [x.title, ...x.blocks] : x.blocks);
  const markupLang = x.markupLang ? normalizeTag(x.markupLang) : null;
  const fromUrl = urlLanguage(canonical);
  const links = new Map<string, { key: string; text: string; context: string }>();
  for (const l of x.links) {
    const k = urlKey(l.url);
    if (k === key || k === urlKey(fetched)) continue;
    const id = `${k}\n${l.text}`;
    const same = links.get(id);
    if (!same) links.set(id, { key: k, text: l.text, context: l.context });
    else if (l.context && same.context.length < 2000) same.context = same.context ? `${same.context}\n${l.context}` : l.context;
  }
  return {
    url: canonical,
    key,
    aliasKeys: [...new Set([key, urlKey(fetched)])],
    title: x.title,
    description: x.description,
    headings: x.headings,
    terms: x.terms,
    described: x.described,
    blocks: x.blocks,
    lang: markupLang ? primaryLanguage(markupLang) : dominantLanguage(langShares),
    langShares,
    markupLang,
    urlLang: fromUrl ? normalizeTag(fromUrl) : null,
    links: [...links.values()],
    defines: pageDefinitions(x.terms, x.indexed, x.anchored),
    nearAnchors: x.nearAnchors,
    section: x.section,
    icon: x.icon,
  };
}
