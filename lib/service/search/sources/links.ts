import { Parser } from 'htmlparser2';
import { normalizeUrl } from '../url.ts';

/** Every link a crawler may follow from a page (all of them, navigation included), and whether
 * the page asks robots not to follow its links (`<meta name="robots" content="nofollow">`). */
export function crawlLinks(html: string, pageUrl: string): { links: string[]; nofollow: boolean } {
  let base = pageUrl;
  let nofollow = false;
  const links = new Set<string>();
  const parser = new Parser(
    {
      onopentag(name, a) {
        if (name === 'base' && a.href) base = normalizeUrl(a.href, base) ?? base;
        if (name === 'meta' && (a.name ?? '').toLowerCase() === 'robots' && /nofollow|none/i.test(a.content ?? '')) nofollow = true;
        if ((name === 'a' || name === 'area') && a.href && !/\bnofollow\b/i.test(a.rel ?? '')) {
          const url = normalizeUrl(a.href, base);
          if (url) links.add(url);
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return { links: [...links], nofollow };
}
