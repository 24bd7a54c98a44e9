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

/** The labels of each host that can name it. */
export function hostLabels(hosts: Iterable<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const host of hosts) {
    const labels = host
      .toLowerCase()
      .replace(/:\d+$/, '')
      .split(/[.-]/)
      .filter((l) => l.length >= MIN_HINT && !GENERIC.has(l) && !/^\d+$/.test(l));
    if (labels.length) out.set(host, labels);
  }
  return out;
}

/** The hosts each concept of a query names (by the concept's index), for single-word concepts. */
export function siteHints(concepts: readonly Concept[], labels: ReadonlyMap<string, readonly string[]>): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  concepts.forEach((c, i) => {
    const word = c.parts.length === 1 ? (c.parts[0] as string) : '';
    if (c.stop || word.length < MIN_HINT) return;
    for (const [host, list] of labels)
      if (list.some((l) => l.startsWith(word) && word.length >= MIN_SHARE * l.length)) {
        let set = out.get(i);
        if (!set) out.set(i, (set = new Set()));
        set.add(host);
      }
  });
  return out;
}
