import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { conceptIdf, namedPrior, type DescriptionMatch } from '../descriptions.ts';
import { indexIn, seek } from '../sorted.ts';
import { idsOf, LIST_FROM_FTS, quoted, unpackIds } from './described-lists.ts';
import { Kept } from './kept.ts';
import { mayHold, pageFilter, type PageFilter } from './page-filter.ts';
import { DEFINITION_SLOTS } from './schema.ts';

/** The terms' lists of definitions a reader keeps in memory by default, in bytes (8 a
 * definition), least recently used out first; and the terms' counts of definitions. */
export const DEFINITION_LIST_BYTES = 128 * 1024 * 1024;
const LISTS_KEPT = 200_000;
const COUNTS_KEPT = 200_000;
/** A bound is taken to be under the score it is compared with only when it is by this much more
 * than rounding: it is summed in another order than the score it bounds. */
const ROUNDING = 1 + 1e-9;

/** The definitions of one level holding a term (or any of a concept's terms): ascending, and
 * for a long list the filter of their pages (page-filter.ts). */
type Level = { ids: Float64Array; pages: PageFilter | null };
/** The definitions holding a term (or any of a concept's terms), each once: by their level
 * (levelOf()); and how many there are in all. */
type Held = { levels: readonly Level[]; size: number };
/** A concept of a question: the definitions holding any of its terms (none when no definition
 * holds one), how many its terms' lists hold together (its order), and its worth. */
type Concept = { held: Held | null; size: number; idf: number };
/** A page by its best definition. */
type Best = { page: number; id: number; share: number };
/** The level of a definition that `links` links name: 0 for none, 1 for one, 2 for two or three,
 * 3 for four to seven, …; a definition of level L is weighed by at most namedPrior() of 2^L - 1
 * links. */
const levelOf = (links: number) => 32 - Math.clz32(links);
/** A level of a list with no definitions in it. */
const NONE: Level = { ids: new Float64Array(0), pages: null };
/** A level of the ascending definitions `ids`. */
const levelOfIds = (ids: Float64Array): Level => ({ ids, pages: pageFilter(ids, DEFINITION_SLOTS) });
/** Past every definition's id. */
const END = Infinity;

/** Whether page `a` comes before `b` among the best: by share, then the lower page (pages are
 * offered in ascending order in a walk, and one that only equals a page's share comes after it). */
const before = (a: Best, b: Best) => a.share > b.share || (a.share === b.share && a.page < b.page);

/** The `limit` best pages offered, best first (before()), each by its best definition (of equals,
 * the lowest id), over one or more walks; `floor`, the share a page must reach to be among them
 * once there are `limit` (-Infinity until then), which only rises. */
class BestPages {
  readonly pages: Best[] = [];
  floor = -Infinity;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  offer(b: Best): void {
    const pages = this.pages;
    const had = pages.findIndex((p) => p.page === b.page);
    if (had >= 0) {
      const h = pages[had] as Best;
      if (!(b.share > h.share || (b.share === h.share && b.id < h.id))) return;
      pages.splice(had, 1);
    } else if (pages.length >= this.#limit && !before(b, pages[this.#limit - 1] as Best)) return;
    let at = pages.length;
    while (at > 0 && before(b, pages[at - 1] as Best)) at--;
    pages.splice(at, 0, b);
    if (pages.length > this.#limit) pages.pop();
    if (pages.length >= this.#limit) this.floor = (pages[this.#limit - 1] as Best).share;
  }
}

/** A page by its best definition, whose term is read from the index (as it stands then) only
 * when asked for: the service asks for the pages and their shares only (decision 0154). */
class StoredMatch implements DescriptionMatch {
  readonly page: number;
  readonly share: number;
  readonly #id: number;
  readonly #read: StatementSync;

  constructor(page: number, share: number, id: number, read: StatementSync) {
    this.page = page;
    this.share = share;
    this.#id = id;
    this.#read = read;
  }

  get term(): string {
    return (this.#read.get(this.#id) as { term: string }).term;
  }
}

/** The ascending ids in any of `lists` (each ascending), each once: merged a pair at a time, in
 * time linear in their lengths (sorting them together took a concept of two common words 40 ms). */
function union(lists: readonly Float64Array[]): Float64Array {
  let all = lists[0] ?? new Float64Array(0);
  for (let j = 1; j < lists.length; j++) all = merged(all, lists[j] as Float64Array);
  return all;
}

/** The ascending ids in `a` or `b` (each ascending, each id once), each once. */
function merged(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x <= y) i++;
    if (y <= x) j++;
    out[n++] = x <= y ? x : y;
  }
  while (i < a.length) out[n++] = a[i++] as number;
  while (j < b.length) out[n++] = b[j++] as number;
  // Its own buffer, as long as it is: the lists kept are counted by their length.
  return n === out.length ? out : out.slice(0, n);
}

/**
 * descriptions.ts Descriptions on the definitions the index stores (schema.ts `definitions`,
 * `described_terms`), reading the lists of a question's own terms rather than every definition
 * (decision 0122), with exactly its results. The definitions are walked a level of links at a
 * time (match(), decision 0149), each level in the order of their ids (so a page's side by side)
 * over the concepts' lists at once, by MaxScore (decision 0128): once
 * `limit` pages are found, the concepts the most definitions hold whose worth together cannot lift
 * a definition past the `limit`-th page are no longer walked, only looked in for the definitions
 * the others hold (first in a bitmap of the pages a long list holds, page-filter.ts, then by
 * galloping; decision 0154), and a definition is left as soon as what it could still hold cannot
 * lift it past that page. The lists are kept in memory, least recently used out first, and so is
 * every named definition's number of links (a sixth of them at 10⁵ pages).
 */
export class StoredDescriptions {
  readonly size: number;
  readonly #most: number;
  readonly #q: Record<'held' | 'list' | 'named' | 'term', StatementSync>;
  /** The fewest definitions a term's list is stored packed for (described_lists), and how it is
   * read; null when the index stores none (one from before them, schema 14). */
  readonly #packed: { from: number; row: StatementSync } | null;
  readonly #lists: Kept<string, Held>;
  readonly #counts = new Kept<string, number>(COUNTS_KEPT);
  /** The definitions some link names (ascending) and their numbers of links, read once. */
  #linked: { ids: Float64Array; links: Uint32Array } | null = null;
  /** The places of the concepts' lists the last match() went through: walked, or looked at while
   * looking a definition up (for the tests and the bench: a question reads this many). */
  read = 0;

  /** `count` and `most`: the stored definitions and the most links naming one (search_meta);
   * `packedFrom`: as search_meta DESCRIBED_LISTS_META says, when it does; `listBytes`: how much of
   * the terms' lists it keeps. */
  constructor(
    db: DatabaseSync,
    { count, most }: { count: number; most: number },
    packedFrom = Infinity,
    listBytes = DEFINITION_LIST_BYTES,
  ) {
    this.size = count;
    this.#lists = new Kept<string, Held>(LISTS_KEPT, {
      limit: listBytes,
      of: (l) => l.levels.reduce((a, t) => a + t.ids.byteLength + (t.pages?.bits.byteLength ?? 0) + 96, 64),
    });
    this.#most = most;
    this.#packed = Number.isFinite(packedFrom)
      ? { from: packedFrom, row: db.prepare('SELECT ids FROM described_lists WHERE term = ?') }
      : null;
    this.#q = {
      held: db.prepare('SELECT doc FROM described_vocab WHERE term = ?'),
      list: db.prepare(LIST_FROM_FTS),
      named: db.prepare('SELECT id, links FROM definitions WHERE links > 0 ORDER BY id'),
      term: db.prepare('SELECT term FROM definitions WHERE id = ?'),
    };
    this.#q.named.setReturnArrays(true);
  }

  /** Forgets the least recently used lists past the limits (between questions only). */
  trim(): void {
    this.#lists.trim();
    this.#counts.trim();
  }

  /** As Descriptions.match: the pages whose definitions best answer a question of `concepts`
   * (each as the terms any of which stand for it), by their best definition, best first.
   *
   * A definition's share is what it holds of the question times its prior (namedPrior), which
   * grows with the links naming it, and is least, 1 - NAMED_PRIOR, for one no link names: nearly
   * all of them (88 % at 10⁶ pages). So each concept's definitions are kept apart by level, by
   * powers of two of their links (levelOf()), and walked a level at a time, the most named first,
   * each bounded by its own highest prior, against the floor the levels before it have raised:
   * the many no link names, last, only as far as the prior of none lets one beat that floor.
   * Each definition is walked once, in its own level; a page's best of each walk is offered, and
   * BestPages keeps its best of all. */
  match(concepts: readonly (readonly string[])[], limit: number): DescriptionMatch[] {
    this.read = 0;
    if (!this.size || !concepts.length || limit <= 0) return [];
    const need = concepts.length > 1 ? 2 : 1;
    const all = this.#concepts(concepts);
    // A concept no definition holds counts in what a definition could hold.
    const total = all.reduce((a, c) => a + c.idf, 0);
    const ordered = all.filter((c) => c.held !== null);
    if (ordered.length < need) return [];
    const best = new BestPages(limit);
    for (let level = levelOf(this.#most); level >= 0; level--) {
      const prior = namedPrior(Math.min(2 ** level - 1, this.#most), this.#most);
      this.#walk(
        ordered.map((c) => (c.held as Held).levels[level] ?? NONE),
        ordered,
        total,
        prior,
        level > 0,
        need,
        best,
      );
    }
    return best.pages.map(({ page, id, share }) => new StoredMatch(page, share, id, this.#q.term));
  }

  /**
   * One walk of the definitions in `lists` (one a concept, in the concepts' order, the fewest
   * held first: a definition's share is summed in it, as Descriptions sums it), offering each
   * page's best to `best`, by MaxScore: `prior` is the most any of them is weighed by; unless
   * `named`, each is weighed by it (no link names any of them).
   */
  #walk(
    lists: readonly Level[],
    concepts: readonly Concept[],
    total: number,
    prior: number,
    named: boolean,
    need: number,
    best: BestPages,
  ): void {
    const m = lists.length;
    // Each list's place, the id there (END past its last), and what holding its concept adds.
    const at = new Int32Array(m);
    const next = new Float64Array(m);
    const most = new Float64Array(m);
    const idf = new Float64Array(m);
    for (let j = 0; j < m; j++) {
      idf[j] = (concepts[j] as Concept).idf;
      most[j] = (prior * (idf[j] as number)) / total;
      const { ids } = lists[j] as Level;
      next[j] = ids.length ? (ids[0] as number) : END;
    }
    // What the lists from each one on add at most together.
    const after = new Float64Array(m + 1);
    for (let j = m - 1; j >= 0; j--) after[j] = (after[j + 1] as number) + (most[j] as number);
    const held = new Uint8Array(m);
    // The lists walked are the first `walked`; those after are looked in only. A definition must
    // hold `need` concepts, so one held only by the need - 1 lists most held can be no answer: those
    // are never walked (for a question of two concepts, only the shorter list is).
    let walked = m - need + 1;
    let read = 0;
    let page: Best = { page: -1, id: -1, share: 0 };
    for (;;) {
      while (walked > 0 && (after[walked - 1] as number) * ROUNDING <= best.floor) walked--;
      let id = END;
      for (let j = 0; j < walked; j++) if ((next[j] as number) < id) id = next[j] as number;
      if (id === END) break;
      // Its page: what the lists' filters are asked, and what it is offered as.
      const of = Math.floor(id / DEFINITION_SLOTS);
      let count = 0;
      let bound = 0;
      for (let j = 0; j < walked; j++) {
        if (next[j] !== id) {
          held[j] = 0;
          continue;
        }
        held[j] = 1;
        const { ids } = lists[j] as Level;
        const p = (at[j] as number) + 1;
        at[j] = p;
        next[j] = p < ids.length ? (ids[p] as number) : END;
        count++;
        bound += most[j] as number;
      }
      read += count;
      let left = false;
      for (let j = walked; j < m; j++) {
        if (count + m - j < need || (bound + (after[j] as number)) * ROUNDING <= best.floor) {
          left = true;
          break;
        }
        const { ids, pages } = lists[j] as Level;
        // Most definitions looked for are of a page the list holds none of: its filter says so.
        if (pages !== null && !mayHold(pages, of)) {
          held[j] = 0;
          continue;
        }
        const p = seek(ids, id, at[j] as number);
        at[j] = p;
        read++;
        if (ids[p] !== id) {
          held[j] = 0;
          continue;
        }
        held[j] = 1;
        at[j] = p + 1;
        count++;
        bound += most[j] as number;
      }
      if (left || count < need) continue;
      let sum = 0;
      for (let j = 0; j < m; j++) if (held[j]) sum += idf[j] as number;
      if (((prior * sum) / total) * ROUNDING <= best.floor) continue;
      const share = (sum / total) * (named ? namedPrior(this.#links(id), this.#most) : prior);
      // The first of a page's equal definitions (the lowest id) stands for it.
      if (of !== page.page) {
        if (page.page >= 0) best.offer(page);
        page = { page: of, id, share };
      } else if (share > page.share) page = { page: of, id, share };
    }
    if (page.page >= 0) best.offer(page);
    this.read += read;
  }

  /** Each concept's definitions, how many its terms' lists hold and what it is worth, the fewest
   * held first (as Descriptions.match orders them, so that each share adds up alike). */
  #concepts(concepts: readonly (readonly string[])[]): Concept[] {
    return concepts
      .map((list) => {
        const terms = list.filter((t) => t && this.#count(t) > 0);
        const distinct = [...new Set(terms)];
        const held = distinct.length ? this.#union(distinct) : null;
        return { held, size: terms.reduce((a, t) => a + this.#count(t), 0), idf: conceptIdf(this.size, held?.size ?? 0) };
      })
      .sort((a, b) => a.size - b.size);
  }

  /** How many definitions hold `term`. */
  #count(term: string): number {
    let c = this.#counts.use(term);
    if (c === undefined) this.#counts.set(term, (c = (this.#q.held.get(term) as { doc: number } | undefined)?.doc ?? 0));
    return c;
  }

  /** The definitions holding any of `terms` (distinct), each once (kept). */
  #union(terms: readonly string[]): Held {
    if (terms.length === 1) return this.#list(terms[0] as string);
    // A term holds no space (the tokenizer splits on them), so this names no term's own list.
    const key = terms.join(' ');
    let held = this.#lists.use(key);
    if (!held) {
      const lists = terms.map((t) => this.#list(t).levels);
      const levels = Array.from({ length: Math.max(...lists.map((l) => l.length)) }, (_, level) =>
        levelOfIds(union(lists.map((l) => (l[level] ?? NONE).ids))),
      );
      this.#lists.set(key, (held = { levels, size: levels.reduce((a, l) => a + l.ids.length, 0) }));
    }
    return held;
  }

  /** The definitions holding `term` (kept): its packed row, for a term that many hold, else (or
   * should the row be missing) FTS5's list. */
  #list(term: string): Held {
    let held = this.#lists.use(term);
    if (!held) {
      const packed =
        this.#packed && this.#count(term) >= this.#packed.from
          ? (this.#packed.row.get(term) as { ids: Uint8Array } | undefined)
          : undefined;
      let ids: Float64Array;
      if (packed) ids = unpackIds(packed.ids);
      else {
        const text = (this.#q.list.get(quoted(term)) as { ids: string | null }).ids;
        ids = text ? idsOf(text) : new Float64Array(0);
      }
      this.#lists.set(term, (held = this.#held(ids)));
    }
    return held;
  }

  /** `ids` (ascending definitions) by level: each looked for among those some link names from
   * where the one before was (seek), a few steps each. */
  #held(ids: Float64Array): Held {
    const linked = this.#named();
    const of = new Uint8Array(ids.length);
    const counts = [0];
    for (let i = 0, at = 0; i < ids.length; i++) {
      at = seek(linked.ids, ids[i] as number, at);
      const level = linked.ids[at] === ids[i] ? levelOf(linked.links[at] as number) : 0;
      of[i] = level;
      while (counts.length <= level) counts.push(0);
      counts[level] = (counts[level] as number) + 1;
    }
    if (counts.length === 1) return { levels: [levelOfIds(ids)], size: ids.length };
    const levels = counts.map((n) => new Float64Array(n));
    const filled = counts.map(() => 0);
    for (let i = 0; i < ids.length; i++) {
      const level = of[i] as number;
      const at = filled[level] as number;
      (levels[level] as Float64Array)[at] = ids[i] as number;
      filled[level] = at + 1;
    }
    return { levels: levels.map(levelOfIds), size: ids.length };
  }

  /** The definitions some link names (ascending) and their numbers of links, read once. */
  #named(): { ids: Float64Array; links: Uint32Array } {
    if (!this.#linked) {
      const rows = this.#q.named.all() as unknown as [number, number][];
      this.#linked = { ids: Float64Array.from(rows, (r) => r[0]), links: Uint32Array.from(rows, (r) => r[1]) };
    }
    return this.#linked;
  }

  /** A definition's number of links. */
  #links(id: number): number {
    const { ids, links } = this.#named();
    const at = indexIn(ids, id);
    return at < 0 ? 0 : (links[at] as number);
  }
}
