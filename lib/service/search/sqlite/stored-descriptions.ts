import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { conceptIdf, namedPrior, type DescriptionMatch } from '../descriptions.ts';
import { indexIn } from '../sorted.ts';
import { Kept } from './kept.ts';
import { DEFINITION_SLOTS } from './schema.ts';

/** A concept's walk is weighed against looking it up for the definitions found so far only once
 * its list is longer than this. */
const LOOKUP_FROM = 2000;
/** Definitions given their popularity between two looks at whether the best pages are settled. */
const PRIOR_BATCH = 64;
/** The terms' lists of definitions a reader keeps in memory, in bytes (8 a definition), least
 * recently used out first; and the terms' counts of definitions. */
const LIST_BYTES = 128 * 1024 * 1024;
const LISTS_KEPT = 200_000;
const COUNTS_KEPT = 200_000;

type Concept = { terms: readonly string[]; size: number; expr: string; idf: number };
/** The definitions found so far, ascending, each with the worth of the concepts it holds and
 * their number. */
type Found = { ids: Float64Array; sums: Float64Array; held: Uint16Array };

const quoted = (term: string) => `"${term.replaceAll('"', '""')}"`;

/** The ascending ids in any of `lists`, each once. */
function union(lists: readonly Float64Array[]): Float64Array {
  if (lists.length === 1) return lists[0] as Float64Array;
  const all = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
  let at = 0;
  for (const l of lists) {
    all.set(l, at);
    at += l.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i] as number;
  return all.subarray(0, n);
}

/** `found` with the definitions of `list` (ascending) holding a concept worth `idf`. */
function merged(found: Found, list: Float64Array, idf: number): Found {
  const { ids, sums, held } = found;
  const n = ids.length + list.length;
  const out: Found = { ids: new Float64Array(n), sums: new Float64Array(n), held: new Uint16Array(n) };
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < ids.length || j < list.length) {
    const a = i < ids.length ? (ids[i] as number) : Infinity;
    const b = j < list.length ? (list[j] as number) : Infinity;
    if (a <= b) {
      out.ids[k] = a;
      out.sums[k] = a === b ? (sums[i] as number) + idf : (sums[i] as number);
      out.held[k++] = a === b ? (held[i] as number) + 1 : (held[i] as number);
      i++;
      if (a === b) j++;
    } else {
      out.ids[k] = b;
      out.sums[k] = idf;
      out.held[k++] = 1;
      j++;
    }
  }
  return { ids: out.ids.subarray(0, k), sums: out.sums.subarray(0, k), held: out.held.subarray(0, k) };
}

/** The first place of `list` (ascending) from `from` on whose value is at least `value`
 * (galloping: steps that double, then a binary search). */
function seek(list: Float64Array, value: number, from: number): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < list.length && (list[hi] as number) < value) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, list.length);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * descriptions.ts Descriptions on the definitions the index stores (schema.ts `definitions`,
 * `described_terms`), reading the lists of a question's own terms rather than every definition
 * (decision 0122), with exactly its results. The concepts are walked from the one the fewest
 * definitions hold; once a concept's list is long, the definitions walked so far are completed
 * by looking the remaining concepts up among them (in the lists kept in memory, or by FTS5, which
 * intersects a short list with a long one by seeking), and the walk stops where no definition
 * outside them could score more than the `limit`-th page found: the remaining concepts are all it
 * could hold (MaxScore's argument). The lists walked are kept in memory, least recently used out
 * first, and so is every named definition's number of links (a sixth of them at 10⁵ pages).
 */
export class StoredDescriptions {
  readonly size: number;
  readonly #most: number;
  readonly #lookUpFrom: number;
  readonly #q: Record<'held' | 'list' | 'lookUp' | 'count' | 'named' | 'term', StatementSync>;
  readonly #lists = new Kept<string, Float64Array>(LISTS_KEPT, { limit: LIST_BYTES, of: (l) => l.byteLength + 64 });
  readonly #counts = new Kept<string, number>(COUNTS_KEPT);
  /** The definitions some link names (ascending) and their numbers of links, read once. */
  #linked: { ids: Float64Array; links: Uint32Array } | null = null;
  /** Definition ids the last match() went through: walked, or looked up by FTS5 (for the tests:
   * a question's lists hold this many at most). */
  read = 0;

  /** `count` and `most`: the stored definitions and the most links naming one (search_meta).
   * `lookUpFrom`: LOOKUP_FROM (the tests weigh looking up at every concept). */
  constructor(db: DatabaseSync, { count, most, lookUpFrom = LOOKUP_FROM }: { count: number; most: number; lookUpFrom?: number }) {
    this.size = count;
    this.#most = most;
    this.#lookUpFrom = lookUpFrom;
    this.#q = {
      held: db.prepare('SELECT doc FROM described_vocab WHERE term = ?'),
      list: db.prepare(
        'SELECT group_concat(id) AS ids FROM (SELECT rowid AS id FROM described_terms WHERE described_terms MATCH ? ORDER BY rowid)',
      ),
      lookUp: db.prepare('SELECT rowid FROM described_terms WHERE described_terms MATCH ?'),
      count: db.prepare('SELECT COUNT(*) AS n FROM described_terms WHERE described_terms MATCH ?'),
      named: db.prepare('SELECT id, links FROM definitions WHERE links > 0 ORDER BY id'),
      term: db.prepare('SELECT term FROM definitions WHERE id = ?'),
    };
    this.#q.lookUp.setReturnArrays(true);
    this.#q.named.setReturnArrays(true);
  }

  /** Forgets the least recently used lists past the limits (between questions only). */
  trim(): void {
    this.#lists.trim();
    this.#counts.trim();
  }

  /** As Descriptions.match: the pages whose definitions best answer a question of `concepts`
   * (each as the terms any of which stand for it), by their best definition, best first. */
  match(concepts: readonly (readonly string[])[], limit: number): DescriptionMatch[] {
    const n = this.size;
    this.read = 0;
    if (!n || !concepts.length || limit <= 0) return [];
    const need = concepts.length > 1 ? 2 : 1;
    const ordered = this.#concepts(concepts);
    const total = ordered.reduce((a, c) => a + c.idf, 0);
    // What the concepts from each one on are worth together: all a definition that none before
    // it holds can score.
    const rest = new Float64Array(ordered.length + 1);
    for (let k = ordered.length - 1; k >= 0; k--) rest[k] = (rest[k + 1] as number) + (ordered[k] as Concept).idf;
    let found: Found = { ids: new Float64Array(0), sums: new Float64Array(0), held: new Uint16Array(0) };
    let walked = 0;
    for (; walked < ordered.length; walked++) {
      // A definition none of the concepts walked holds cannot hold enough of the others.
      if (ordered.length - walked < need) break;
      const next = ordered[walked] as Concept;
      if (
        walked > 0 &&
        next.size > Math.max(this.#lookUpFrom, found.ids.length) &&
        this.#settled(found, (rest[walked] as number) / total, total, need, limit)
      )
        return this.#withNames(this.#best(found, ordered, walked, total, need, limit));
      if (!next.expr) continue;
      const ids = union(next.terms.map((t) => this.#list(t)));
      this.read += ids.length;
      found = merged(found, ids, next.idf);
    }
    return this.#withNames(this.#best(found, ordered, walked, total, need, limit));
  }

  /** Each concept's terms that some definition holds, how many definitions hold it and what it
   * is worth, the fewest held first (as Descriptions.match orders them, so that each share adds
   * up alike). */
  #concepts(concepts: readonly (readonly string[])[]): Concept[] {
    return concepts
      .map((list) => {
        const terms = list.filter((t) => t && this.#count(t) > 0);
        const distinct = [...new Set(terms)];
        const expr = distinct.map(quoted).join(' OR ');
        let defs = 0;
        if (distinct.length === 1) defs = this.#count(distinct[0] as string);
        else if (distinct.length > 1)
          defs = distinct.every((t) => this.#lists.has(t))
            ? union(distinct.map((t) => this.#list(t))).length
            : (this.#q.count.get(expr) as { n: number }).n;
        return { terms: distinct, size: terms.reduce((a, t) => a + this.#count(t), 0), expr, idf: conceptIdf(this.size, defs) };
      })
      .sort((a, b) => a.size - b.size);
  }

  /** How many definitions hold `term`. */
  #count(term: string): number {
    let c = this.#counts.use(term);
    if (c === undefined) this.#counts.set(term, (c = (this.#q.held.get(term) as { doc: number } | undefined)?.doc ?? 0));
    return c;
  }

  /** The definitions holding `term`, ascending (kept). */
  #list(term: string): Float64Array {
    let list = this.#lists.use(term);
    if (!list) {
      const ids = (this.#q.list.get(quoted(term)) as { ids: string | null }).ids;
      list = ids ? Float64Array.from(ids.split(','), Number) : new Float64Array(0);
      this.#lists.set(term, list);
    }
    return list;
  }

  /** A definition's number of links. */
  #links(id: number): number {
    if (!this.#linked) {
      const rows = this.#q.named.all() as unknown as [number, number][];
      this.#linked = { ids: Float64Array.from(rows, (r) => r[0]), links: Uint32Array.from(rows, (r) => r[1]) };
    }
    const at = indexIn(this.#linked.ids, id);
    return at < 0 ? 0 : (this.#linked.links[at] as number);
  }

  /**
   * Whether `limit` pages of the definitions `found` so far are sure to score more than `bound`
   * (what a definition none of them holds can score at most), whatever else they hold and however
   * popular: each holding enough concepts already scores at least its share so far at the lowest
   * popularity. Cheaper by far than completing them (#best), which is done once it is so.
   */
  #settled(found: Found, bound: number, total: number, need: number, limit: number): boolean {
    const least = namedPrior(0, this.#most);
    let pages = 0;
    let last = -1;
    for (let i = 0; i < found.ids.length; i++) {
      if ((found.held[i] as number) < need || ((found.sums[i] as number) / total) * least <= bound) continue;
      // The ids are in order, so a page's definitions are side by side.
      const page = Math.floor((found.ids[i] as number) / DEFINITION_SLOTS);
      if (page !== last && ++pages >= limit) return true;
      last = page;
    }
    return false;
  }

  /**
   * The `limit` best pages among the definitions `found` by the first `walked` concepts, each of
   * them completed with the concepts after (looked up among them, added to `found`), by their best
   * definition (its id for a name).
   */
  #best(found: Found, ordered: readonly Concept[], walked: number, total: number, need: number, limit: number) {
    const { ids, sums, held } = found;
    if (walked < ordered.length && ids.length) {
      const among = `(${ordered
        .slice(0, walked)
        .filter((c) => c.expr)
        .map((c) => c.expr)
        .join(' OR ')})`;
      for (const c of ordered.slice(walked)) {
        if (!c.expr) continue;
        // Kept in memory, the concept's definitions are looked up there; else FTS5 finds those
        // of the definitions found (in order, as `ids` are).
        let holding: Float64Array;
        if (c.terms.every((t) => this.#lists.has(t))) holding = union(c.terms.map((t) => this.#list(t)));
        else {
          holding = Float64Array.from(this.#q.lookUp.all(`${among} AND (${c.expr})`) as unknown as [number][], (r) => r[0]);
          this.read += holding.length;
        }
        for (let i = 0, j = 0; i < ids.length && j < holding.length; i++) {
          j = seek(holding, ids[i] as number, j);
          if (holding[j] === ids[i]) {
            sums[i] = (sums[i] as number) + c.idf;
            held[i] = (held[i] as number) + 1;
          }
        }
      }
    }
    // A page scores at least its best share at the lowest popularity, so a definition under the
    // `limit`-th page's by that cannot be among them.
    const least = namedPrior(0, this.#most);
    const floors: number[] = [];
    for (let i = 0, last = -1; i < ids.length; i++) {
      if ((held[i] as number) < need) continue;
      const page = Math.floor((ids[i] as number) / DEFINITION_SLOTS);
      const floor = ((sums[i] as number) / total) * least;
      if (page !== last) floors.push(floor);
      else if (floor > (floors.at(-1) as number)) floors[floors.length - 1] = floor;
      last = page;
    }
    const floor = floors.length >= limit ? (floors.sort((a, b) => b - a)[limit - 1] as number) : 0;
    // Each definition's share before its popularity, which can only lower it: given theirs from
    // the best down, until no definition left could reach the `limit`-th page.
    const shares: { id: number; share: number }[] = [];
    for (let i = 0; i < ids.length; i++) {
      const share = (sums[i] as number) / total;
      if ((held[i] as number) >= need && share >= floor) shares.push({ id: ids[i] as number, share });
    }
    shares.sort((a, b) => b.share - a.share || a.id - b.id);
    const pages = new Map<number, { page: number; id: number; share: number }>();
    for (let at = 0; at < shares.length; at++) {
      const s = shares[at] as { id: number; share: number };
      if (at % PRIOR_BATCH === 0 && at > 0) {
        const last = this.#top(pages, limit).at(limit - 1);
        if (last && s.share < last.share) break;
      }
      const share = s.share * namedPrior(this.#links(s.id), this.#most);
      const page = Math.floor(s.id / DEFINITION_SLOTS);
      const had = pages.get(page);
      if (!had || share > had.share || (share === had.share && s.id < had.id)) pages.set(page, { page, id: s.id, share });
    }
    return this.#top(pages, limit);
  }

  /** The `limit` best of `pages`, by share, then by page. */
  #top<T extends { page: number; share: number }>(pages: ReadonlyMap<number, T>, limit: number): T[] {
    return [...pages.values()].sort((a, b) => b.share - a.share || a.page - b.page).slice(0, limit);
  }

  /** The pages with the name of their best definition. */
  #withNames(best: readonly { page: number; id: number; share: number }[]): DescriptionMatch[] {
    return best.map(({ page, id, share }) => ({ page, term: (this.#q.term.get(id) as { term: string }).term, share }));
  }
}
