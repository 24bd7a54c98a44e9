import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { conceptIdf, namedPrior, type DescriptionMatch } from '../descriptions.ts';
import { DEFINITION_SLOTS } from './schema.ts';

/** A concept's walk is weighed against looking it up for the definitions found so far only once
 * its list is longer than this. */
const LOOKUP_FROM = 2000;
/** Definitions given their popularity between two looks at whether the best pages are settled. */
const PRIOR_BATCH = 64;

type Concept = { terms: readonly string[]; size: number; expr: string; idf: number };
type Found = { sum: number; held: number };

const quoted = (term: string) => `"${term.replaceAll('"', '""')}"`;

/**
 * descriptions.ts Descriptions on the definitions the index stores (schema.ts `definitions`,
 * `described_terms`), reading the lists of a question's own terms rather than every definition
 * (decision 0122), with exactly its results. The concepts are walked from the one the fewest
 * definitions hold; once a concept's list is long, the definitions walked so far are completed
 * by looking the remaining concepts up among them (FTS5 intersects a short list with a long one
 * by seeking), and the walk stops where no definition outside them could score more than the
 * `limit`-th page found: the remaining concepts are all it could hold (MaxScore's argument).
 */
export class StoredDescriptions {
  readonly size: number;
  readonly #most: number;
  readonly #lookUpFrom: number;
  readonly #q: Record<'held' | 'walk' | 'count' | 'definition', StatementSync>;
  /** Definition ids the last match() read from the lists, walked or looked up (for the tests and
   * the bench: a question's lists hold this many at most). */
  read = 0;

  /** `count` and `most`: the stored definitions and the most links naming one (search_meta).
   * `lookUpFrom`: LOOKUP_FROM (the tests weigh looking up at every concept). */
  constructor(db: DatabaseSync, { count, most, lookUpFrom = LOOKUP_FROM }: { count: number; most: number; lookUpFrom?: number }) {
    this.size = count;
    this.#most = most;
    this.#lookUpFrom = lookUpFrom;
    this.#q = {
      held: db.prepare('SELECT doc FROM described_vocab WHERE term = ?'),
      walk: db.prepare('SELECT rowid FROM described_terms WHERE described_terms MATCH ?'),
      count: db.prepare('SELECT COUNT(*) AS n FROM described_terms WHERE described_terms MATCH ?'),
      definition: db.prepare('SELECT term, links FROM definitions WHERE id = ?'),
    };
    this.#q.walk.setReturnArrays(true);
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
    const found = new Map<number, Found>();
    let walked = 0;
    for (; walked < ordered.length; walked++) {
      // A definition none of the concepts walked holds cannot hold enough of the others.
      if (ordered.length - walked < need) break;
      const next = ordered[walked] as Concept;
      if (walked > 0 && next.size > Math.max(this.#lookUpFrom, found.size)) {
        const best = this.#best(found, ordered, walked, total, need, limit);
        const last = best.at(-1);
        if (best.length >= limit && last && (rest[walked] as number) / total < last.share) return best;
      }
      if (!next.expr) continue;
      const ids = this.#q.walk.all(next.expr) as unknown as [number][];
      this.read += ids.length;
      for (const [id] of ids) {
        const f = found.get(id);
        if (f) {
          f.sum += next.idf;
          f.held++;
        } else found.set(id, { sum: next.idf, held: 1 });
      }
    }
    return this.#best(found, ordered, walked, total, need, limit);
  }

  /** Each concept's terms that some definition holds, how many definitions hold it and what it
   * is worth, the fewest held first (as Descriptions.match orders them, so that each share adds
   * up alike). */
  #concepts(concepts: readonly (readonly string[])[]): Concept[] {
    const counts = new Map<string, number>();
    const held = (t: string) => {
      let c = counts.get(t);
      if (c === undefined) counts.set(t, (c = (this.#q.held.get(t) as { doc: number } | undefined)?.doc ?? 0));
      return c;
    };
    return concepts
      .map((list) => {
        const terms = list.filter((t) => t && held(t) > 0);
        const distinct = [...new Set(terms)];
        const expr = distinct.map(quoted).join(' OR ');
        const defs =
          distinct.length === 0 ? 0 : distinct.length === 1 ? held(distinct[0] as string) : (this.#q.count.get(expr) as { n: number }).n;
        return { terms, size: terms.reduce((a, t) => a + held(t), 0), expr, idf: conceptIdf(this.size, defs) };
      })
      .sort((a, b) => a.size - b.size);
  }

  /**
   * The `limit` best pages among the definitions `found` by the first `walked` concepts, each of
   * them completed with the concepts after (looked up among them), by their best definition.
   */
  #best(found: ReadonlyMap<number, Found>, ordered: readonly Concept[], walked: number, total: number, need: number, limit: number) {
    const sums = new Map<number, Found>();
    for (const [id, f] of found) sums.set(id, { ...f });
    if (walked < ordered.length && sums.size) {
      const among = `(${ordered
        .slice(0, walked)
        .filter((c) => c.expr)
        .map((c) => c.expr)
        .join(' OR ')})`;
      for (const c of ordered.slice(walked)) {
        if (!c.expr) continue;
        const ids = this.#q.walk.all(`${among} AND (${c.expr})`) as unknown as [number][];
        this.read += ids.length;
        for (const [id] of ids) {
          const f = sums.get(id) as Found;
          f.sum += c.idf;
          f.held++;
        }
      }
    }
    // Each definition's share before its popularity, which can only lower it: given theirs from
    // the best down, until no definition left could reach the `limit`-th page.
    const shares: { id: number; share: number }[] = [];
    for (const [id, f] of sums) if (f.held >= need) shares.push({ id, share: f.sum / total });
    shares.sort((a, b) => b.share - a.share || a.id - b.id);
    const pages = new Map<number, DescriptionMatch & { id: number }>();
    for (let at = 0; at < shares.length; at++) {
      const s = shares[at] as { id: number; share: number };
      if (at % PRIOR_BATCH === 0 && at > 0) {
        const top = this.#top(pages, limit);
        const last = top.at(-1);
        if (top.length >= limit && last && s.share < last.share) break;
      }
      const d = this.#q.definition.get(s.id) as { term: string; links: number };
      const share = s.share * namedPrior(d.links, this.#most);
      const page = Math.floor(s.id / DEFINITION_SLOTS);
      const had = pages.get(page);
      if (!had || share > had.share || (share === had.share && s.id < had.id)) pages.set(page, { page, term: d.term, share, id: s.id });
    }
    return this.#top(pages, limit).map(({ page, term, share }) => ({ page, term, share }));
  }

  /** The `limit` best of `pages`, by share, then by page. */
  #top(pages: ReadonlyMap<number, DescriptionMatch & { id: number }>, limit: number) {
    return [...pages.values()].sort((a, b) => b.share - a.share || a.page - b.page).slice(0, limit);
  }
}
