/**
 * The search box's site words: `site:docs.python.org` searches that site (and the hosts under
 * it) only, `-site:example.com` leaves a site out, as web search engines have taught people to
 * type. The box's text stays what was typed (the address holds it); the search itself is the
 * other words with the sites apart, as the service's `sites` and `excludeSites` (docs/api.md).
 * Browser code imports this module: plain functions only.
 */
import { normaliseHost } from '#shared/protocol/site-hosts.ts';

export type BoxSearch = { query: string; sites: string[]; excludeSites: string[] };

const SITE_WORD = /^(-?)site:(.*)$/i;

/** A value as people type or paste it: a host in its normal form (an address is taken for its
 * host, which is what the service wants); anything else as typed, for the rules to refuse. */
function siteValue(value: string): string {
  let host = value;
  if (/^https?:\/\//i.test(value)) {
    try {
      host = new URL(value).hostname;
    } catch {
      return value;
    }
  }
  const normal = normaliseHost(host);
  return 'host' in normal ? normal.host : value;
}

/** The words of the box's text, and the sites its `site:` and `-site:` words name (as typed; the
 * request's rules check them). A bare `site:` is a word like any other. */
export function readSiteWords(text: string): BoxSearch {
  const words: string[] = [];
  const sites: string[] = [];
  const excludeSites: string[] = [];
  for (const word of text.split(/\s+/u).filter(Boolean)) {
    const m = SITE_WORD.exec(word);
    if (!m || !m[2]) {
      words.push(word);
      continue;
    }
    const host = siteValue(m[2]);
    const list = m[1] ? excludeSites : sites;
    if (!list.includes(host)) list.push(host);
  }
  return { query: words.join(' '), sites, excludeSites };
}

/** The box's text for a search: its words, then its sites as `site:` and `-site:` words. */
export function writeSiteWords(s: { query: string; sites?: readonly string[]; excludeSites?: readonly string[] }): string {
  return [s.query, ...(s.sites ?? []).map((h) => `site:${h}`), ...(s.excludeSites ?? []).map((h) => `-site:${h}`)]
    .filter(Boolean)
    .join(' ');
}
