import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FetchFormat } from '#shared/protocol/actions.ts';

/** The most links a fetch answers (a page of ten thousand links helps no reader). */
export const MAX_LINKS = 2000;
/** The longest content a fetch answers, in characters; longer is cut, saying so. */
export const MAX_CONTENT_CHARS = 5_000_000;
/**
 * The longest link and title kept: the page is the tenant's and may be hostile, and Chromium
 * allows addresses of 2 MB, so without these 2,000 links could make gigabytes of answer.
 */
export const MAX_LINK_CHARS = 8192;
export const MAX_TITLE_CHARS = 1000;

export type Extracted = { title: string; content: string; links: string[] };

const require = createRequire(import.meta.url);
const source = (specifier: string) => readFileSync(require.resolve(specifier), 'utf8');

/**
 * The main content of the page, found by Mozilla's Readability (Firefox's Reader View) on a copy of
 * the rendered document and written as Markdown by Turndown: both libraries run inside the page's
 * browser, in a world of the service's own (ActionPage.evaluateIsolated), on the DOM as rendered.
 * A page Readability finds no article in is read whole (its body).
 */
const libraries = () => `
  const Readability = (() => {
    const module = { exports: {} };
    ${source('@mozilla/readability/Readability.js')}
    return module.exports;
  })();
  const TurndownService = (() => {
    const module = { exports: {} };
    const exports = module.exports;
    ${source('turndown/lib/turndown.browser.umd.js')}
    return module.exports;
  })();
`;

type Article = { title?: string; content?: string; textContent?: string } | null;
type Libraries = {
  Readability: new (doc: Node, options: object) => { parse(): Article };
  TurndownService: new (options: object) => { remove(tags: string[]): void; turndown(html: string): string };
};

/** Runs in the page (isolated world): no closure over this module, only its arguments. */
function readPage(
  format: FetchFormat,
  max: { links: number; linkChars: number; titleChars: number; chars: number },
  libraries: Libraries,
): Extracted {
  const links: string[] = [];
  const seen = new Set<string>();
  for (const a of Array.from(document.querySelectorAll('a[href]')) as HTMLAnchorElement[]) {
    const href = a.href;
    if (!/^https?:/i.test(href) || href.length > max.linkChars || seen.has(href)) continue;
    seen.add(href);
    links.push(href);
    if (links.length >= max.links) break;
  }
  let article: Article;
  try {
    article = new libraries.Readability(document.cloneNode(true), { charThreshold: 200 }).parse();
  } catch {
    article = null; // a page Readability cannot read is read whole
  }
  const html = article?.content || document.body?.innerHTML || '';
  let content: string;
  if (format === 'html') content = html;
  else if (format === 'text')
    content = (article?.textContent ?? document.body?.innerText ?? '')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  else {
    const turndown = new libraries.TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '*',
    });
    turndown.remove(['script', 'style', 'noscript', 'template']);
    content = turndown.turndown(html).trim();
  }
  if (content.length > max.chars) content = `${content.slice(0, max.chars)}\n\n[cut: the content was longer than ${max.chars} characters]`;
  return { title: (document.title || article?.title || '').slice(0, max.titleChars), content, links };
}

/** The libraries' source, read from their packages on the first fetch (not at the service's start). */
let LIBRARIES: string | null = null;

/** The expression that reads the page: the libraries, then readPage with `format`. */
export function readPageExpression(format: FetchFormat): string {
  LIBRARIES ??= libraries();
  const max = { links: MAX_LINKS, linkChars: MAX_LINK_CHARS, titleChars: MAX_TITLE_CHARS, chars: MAX_CONTENT_CHARS };
  return `(() => { ${LIBRARIES}; return (${readPage.toString()})(${JSON.stringify(format)}, ${JSON.stringify(max)}, { Readability, TurndownService }); })()`;
}
