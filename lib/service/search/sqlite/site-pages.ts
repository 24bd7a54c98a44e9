import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { rowsAsArrays } from '#shared/sqlite.ts';
import { filtersSites, hostOf, siteAllows, siteFiltersKey, type SiteFilters } from '../sites.ts';

/** Every page's address, read through the index `signals_hosts` (schema.ts), not the whole rows. */
export const PAGE_URLS = 'SELECT id, url FROM signals';

/** Site filters whose pages a reader keeps worked out (one byte per page of the index each). */
const FILTERS_KEPT = 16;

/**
 * Which pages of the index a search's site filters allow (sites.ts), for the first stage to pick
 * its candidates among them only: a filter applied after the top candidates were taken would
 * leave a site whose pages rank below them with no results. The pages' hosts are read through
 * `signals_hosts` once per index version, and each filter's pages are kept as a byte per page id,
 * the few latest filters at most.
 */
export class SitePages {
  readonly #urls: StatementSync;
  /** Page ids by host, and the highest id, as of the index version read. */
  #hosts: Map<string, number[]> | null = null;
  /** Each page's host, as its place in #hostNames (-1 for none). */
  #hostOfPage: Int32Array | null = null;
  #hostNames: string[] | null = null;
  #maxId = 0;
  #pageCount = 0;
  readonly #kept = new Map<string, Uint8Array>();
  /** The index version (SQLite's data_version) what is kept was read at. */
  #version: number | null = null;

  constructor(db: DatabaseSync) {
    this.#urls = rowsAsArrays(db.prepare(PAGE_URLS));
  }

  /** The hosts of the index's pages at `version` (read once per version, as allowed() reads them). */
  hosts(version: number): Iterable<string> {
    this.#sync(version);
    return this.#pagesByHost().keys();
  }

  /** The host of each of `ids` (null for a page of none), at `version`. */
  hostsOf(ids: readonly number[], version: number): (string | null)[] {
    this.#sync(version);
    this.#pagesByHost();
    const names = this.#hostNames as string[];
    const of = this.#hostOfPage as Int32Array;
    return ids.map((id) => (id < of.length && (of[id] as number) >= 0 ? (names[of[id] as number] as string) : null));
  }

  /** How many pages of the index have a host, at `version`. */
  pageCount(version: number): number {
    this.#sync(version);
    this.#pagesByHost();
    return this.#pageCount;
  }

  /** The ids of the pages of `host` at `version` (none for a host the index has no page of); the
   * array is kept until the version changes, and must not be changed. */
  pagesOf(host: string, version: number): readonly number[] {
    this.#sync(version);
    return this.#pagesByHost().get(host) ?? [];
  }

  /** The pages the filters allow (allowed[id] is 1), or null when they allow every page; `version`
   * is the index's version the caller reads (what was kept for another one is dropped). */
  allowed(filters: SiteFilters, version: number): Uint8Array | null {
    if (!filtersSites(filters)) return null;
    this.#sync(version);
    const key = siteFiltersKey(filters);
    let allowed = this.#kept.get(key);
    if (allowed) {
      // Most recently used last.
      this.#kept.delete(key);
    } else {
      const hosts = this.#pagesByHost();
      allowed = new Uint8Array(this.#maxId + 1);
      for (const [host, ids] of hosts) if (siteAllows(filters, host)) for (const id of ids) allowed[id] = 1;
      if (this.#kept.size >= FILTERS_KEPT) this.#kept.delete(this.#kept.keys().next().value as string);
    }
    this.#kept.set(key, allowed);
    return allowed;
  }

  #sync(version: number): void {
    if (version === this.#version) return;
    this.#hosts = null;
    this.#hostOfPage = null;
    this.#hostNames = null;
    this.#kept.clear();
    this.#version = version;
  }

  #pagesByHost(): Map<string, number[]> {
    if (this.#hosts) return this.#hosts;
    const hosts = new Map<string, number[]>();
    let max = 0;
    for (const [id, url] of this.#urls.iterate() as Iterable<[id: number, url: string]>) {
      const host = hostOf(url);
      if (!host) continue;
      let ids = hosts.get(host);
      if (!ids) hosts.set(host, (ids = []));
      ids.push(id);
      if (id > max) max = id;
    }
    this.#maxId = max;
    this.#pageCount = 0;
    for (const ids of hosts.values()) this.#pageCount += ids.length;
    this.#hostNames = [...hosts.keys()];
    this.#hostOfPage = new Int32Array(max + 1).fill(-1);
    this.#hostNames.forEach((host, i) => {
      for (const id of hosts.get(host) as number[]) (this.#hostOfPage as Int32Array)[id] = i;
    });
    return (this.#hosts = hosts);
  }
}
