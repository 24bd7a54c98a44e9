import type { Concept } from './tokenize.ts';

/**
 * A word of a query that names a site the index holds (`postgres vacuum`, `python list
 * comprehension`, `debian firewall`) says where to look, not what to find (decision 0082): pages
 * about `postgres` or `python` are not what was asked. Such a word is not searched when other words
 * are left, and the pages of the sites it names are preferred.
 *
 * A word names a site when it is at least MIN_HINT letters long and a label of the site's host
 * (split at dots and dashes, the generic ones aside) is that word or begins with it, the word
 * holding most of the label: `postgres` names www.postgresql.org (`post` does not), `python`
 * docs.python.org, `debian` both debian.org and debian-handbook.info.
 */
const MIN_HINT = 4;
/** The least share of a label's letters a word that begins it must have. */
const MIN_SHARE = 0.75;
const GENERIC = new Set(['www', 'docs', 'doc', 'org', 'com', 'net', 'info', 'io', 'dev', 'html', 'web', 'site', 'wiki', 'api', 'help']);

/** The hosts each word names (siteNames), by the word. */
export type SiteNames = ReadonlyMap<string, readonly string[]>;

/**
 * The hosts each word can name, by the word: every label of a host that can name it, under each of
 * its beginnings that hold enough of it (MIN_HINT and MIN_SHARE). Worked out once per index, so
 * that a query looks its words up rather than going through every host (a real crawl of 10⁶
 * pages spans tens of thousands).
 */
export function siteNames(hosts: Iterable<string>): SiteNames {
  const out = new Map<string, string[]>();
  for (const host of hosts) {
    const labels = host
      .toLowerCase()
      .replace(/:\d+$/, '')
      .split(/[.-]/)
      .filter((l) => l.length >= MIN_HINT && !GENERIC.has(l) && !/^\d+$/.test(l));
    for (const label of labels)
      for (let n = Math.max(MIN_HINT, Math.ceil(MIN_SHARE * label.length)); n <= label.length; n++) {
        const word = label.slice(0, n);
        const named = out.get(word);
        // A host's labels come one after another: a word two of them begin names it once.
        if (!named) out.set(word, [host]);
        else if (named.at(-1) !== host) named.push(host);
      }
  }
  return out;
}

/** The hosts each concept of a query names (by the concept's index), for single-word concepts. */
export function siteHints(concepts: readonly Concept[], names: SiteNames): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  concepts.forEach((c, i) => {
    const word = c.parts.length === 1 ? (c.parts[0] as string) : '';
    if (c.stop || word.length < MIN_HINT) return;
    const hosts = names.get(word);
    if (hosts) out.set(i, new Set(hosts));
  });
  return out;
}
