import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { decodePostings, encodePostings, POSTINGS_FORMAT, reversed, type PostingList } from './postings.ts';
import { FTS_COLUMNS, FIELD_WEIGHTS } from './schema.ts';
import { FtsTokenizer } from './tokenizer.ts';

type Column = (typeof FTS_COLUMNS)[number];
/** A page as the full-text table gets it: token streams (tokenize.ts) by column, the body's by
 * block (line), and which blocks are snippet passages (snippet.ts). */
export type PageTokens = {
  fields: Readonly<Record<Exclude<Column, 'body'>, string>>;
  bodyBlocks: readonly string[];
  passages: ReadonlySet<number>;
};

/** Passages remembered per term and page (the first ones; a snippet needs one). */
const MAX_PLACES = 16;

/** One term's new postings, in page order: places[i] is the passages of docs[i]. */
type Growing = { docs: number[]; freqs: number[]; places: (readonly number[] | null)[] };
type TokenCount = { weighted: number; n: number; places: number[] | null };

/**
 * Keeps the postings (postings.ts) in step with the full-text rows. The index writer reports each
 * page whose row it rebuilt (or dropped), in ascending id order; flush() then rewrites the
 * postings of every term those pages held or hold, in a transaction of the caller's, and marks
 * them complete. A page's terms are FTS5's own (tokenizer.ts), counted with the columns' weights.
 */
export class PostingsWriter {
  readonly #db: DatabaseSync;
  readonly #tokenizer = new FtsTokenizer();
  readonly #q: Record<
    'oldTerms' | 'lookup' | 'put' | 'drop' | 'putEnd' | 'dropEnd' | 'putPage' | 'dropPage' | 'meta' | 'format' | 'count',
    StatementSync
  >;
  readonly #growing = new Map<string, Growing>();
  /** Pages reported since the last flush, with their length and terms (null: the page is gone). */
  readonly #pages = new Map<number, { length: number; terms: string } | null>();
  /** Terms the reported pages held before. */
  readonly #stale = new Set<string>();
  #lastId = -1;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#q = {
      oldTerms: db.prepare('SELECT terms FROM page_terms WHERE page_id = ?'),
      lookup: db.prepare('SELECT data FROM postings WHERE term = ?'),
      put: db.prepare('INSERT OR REPLACE INTO postings (term, data) VALUES (?, ?)'),
      drop: db.prepare('DELETE FROM postings WHERE term = ?'),
      putEnd: db.prepare('INSERT OR IGNORE INTO term_ends (reversed) VALUES (?)'),
      dropEnd: db.prepare('DELETE FROM term_ends WHERE reversed = ?'),
      putPage: db.prepare('INSERT OR REPLACE INTO page_terms (page_id, length, terms) VALUES (?, ?, ?)'),
      dropPage: db.prepare('DELETE FROM page_terms WHERE page_id = ?'),
      meta: db.prepare("INSERT OR REPLACE INTO search_meta (key, value) VALUES ('postings', ?)"),
      format: db.prepare("SELECT value FROM search_meta WHERE key = 'postings'"),
      count: db.prepare('SELECT COUNT(*) AS n FROM postings'),
    };
  }

  /** Whether the postings are missing or in another format: then every page must be reported
   * again, after reset(). */
  stale(): boolean {
    return (this.#q.format.get() as { value: string } | undefined)?.value !== POSTINGS_FORMAT;
  }

  /** Drops all postings (inside the caller's transaction). */
  reset(): void {
    this.#db.exec("DELETE FROM postings; DELETE FROM term_ends; DELETE FROM page_terms; DELETE FROM search_meta WHERE key = 'postings';");
    this.#growing.clear();
    this.#pages.clear();
    this.#stale.clear();
    this.#lastId = -1;
  }

  /** A page whose full-text row was rebuilt, or dropped (null). Pages come in ascending id order. */
  page(id: number, page: PageTokens | null): void {
    if (id <= this.#lastId) throw new Error(`page ${id} reported after page ${this.#lastId}: pages come in ascending id order, once`);
    this.#lastId = id;
    const old = this.#q.oldTerms.get(id) as { terms: string } | undefined;
    if (old?.terms) for (const t of old.terms.split(' ')) this.#stale.add(t);
    if (!page) {
      this.#pages.set(id, null);
      return;
    }
    const { length, terms } = this.#terms(this.#tokens(page));
    for (const [t, e] of terms) {
      let g = this.#growing.get(t);
      if (!g) this.#growing.set(t, (g = { docs: [], freqs: [], places: [] }));
      g.docs.push(id);
      g.freqs.push(e.weighted);
      g.places.push(e.places);
    }
    this.#pages.set(id, { length, terms: [...terms.keys()].join(' ') });
  }

  /** The page's tokens with their weighted count, number and the passages they occur in. */
  #tokens(page: PageTokens): Map<string, TokenCount> {
    const tokens = new Map<string, TokenCount>();
    const count = (stream: string, w: number, place: number) => {
      for (const token of stream.split(' ')) {
        const seen = tokens.get(token);
        if (seen) {
          seen.weighted += w;
          seen.n++;
          if (place >= 0) {
            if (!seen.places) seen.places = [place];
            else if (seen.places.length < MAX_PLACES && seen.places.at(-1) !== place) seen.places.push(place);
          }
        } else if (token) tokens.set(token, { weighted: w, n: 1, places: place >= 0 ? [place] : null });
      }
    };
    for (const column of FTS_COLUMNS) if (column !== 'body') count(page.fields[column], FIELD_WEIGHTS[column], -1);
    page.bodyBlocks.forEach((block, i) => count(block, FIELD_WEIGHTS.body, page.passages.has(i) ? i : -1));
    return tokens;
  }

  /** Tokens to FTS5 terms: a page's length in terms (as FTS5 counts it) and each term's count. */
  #terms(tokens: Map<string, TokenCount>): { length: number; terms: Map<string, TokenCount> } {
    const terms = new Map<string, TokenCount>();
    let length = 0;
    const add = (list: readonly string[], e: TokenCount) => {
      length += e.n * list.length;
      for (const t of list) {
        const into = terms.get(t);
        if (!into) terms.set(t, { weighted: e.weighted, n: e.n, places: e.places });
        else {
          into.weighted += e.weighted;
          into.n += e.n;
          if (e.places) into.places = [...new Set([...(into.places ?? []), ...e.places])].sort((a, b) => a - b).slice(0, MAX_PLACES);
        }
      }
    };
    const fresh: string[] = [];
    for (const [token, e] of tokens) {
      const list = this.#tokenizer.known(token);
      if (list) add(list, e);
      else fresh.push(token);
    }
    this.#tokenizer.learn(fresh);
    for (const token of fresh) add(this.#tokenizer.terms(token), tokens.get(token) as TokenCount);
    return { length, terms };
  }

  /** Writes the pages' terms and the postings of every term they held or hold, in term order. */
  flush(): void {
    const q = this.#q;
    const fresh = (q.count.get() as { n: number }).n === 0;
    for (const [id, page] of this.#pages) {
      if (page) q.putPage.run(id, page.length, page.terms);
      else q.dropPage.run(id);
    }
    const changed = this.#pages;
    const terms = [...this.#growing.keys()];
    for (const t of this.#stale) if (!this.#growing.has(t)) terms.push(t);
    terms.sort();
    const born: string[] = [];
    for (const t of terms) {
      const added = this.#growing.get(t) ?? { docs: [], freqs: [], places: [] };
      const row = fresh ? undefined : (q.lookup.get(t) as { data: Uint8Array } | undefined);
      const entries = row ? merge(decodePostings(row.data), changed, added) : added;
      if (entries.docs.length) {
        q.put.run(t, encodePostings(postingList(entries)));
        if (!row) born.push(reversed(t));
      } else if (row) {
        q.drop.run(t);
        q.dropEnd.run(reversed(t));
      }
    }
    // New terms' ends, in order (a fresh index adds every term).
    for (const r of born.sort()) q.putEnd.run(r);
    q.meta.run(POSTINGS_FORMAT);
    this.#growing.clear();
    this.#pages.clear();
    this.#stale.clear();
    this.#lastId = -1;
  }

  close(): void {
    this.#tokenizer.close();
  }
}

/** An existing posting list without the `changed` pages, merged with the new entries. */
function merge(old: PostingList, changed: ReadonlyMap<number, unknown>, added: Growing): Growing {
  const out: Growing = { docs: [], freqs: [], places: [] };
  let j = 0;
  const takeAdded = () => {
    out.docs.push(added.docs[j] as number);
    out.freqs.push(added.freqs[j] as number);
    out.places.push(added.places[j] ?? null);
    j++;
  };
  for (let i = 0; i < old.docs.length; i++) {
    const d = old.docs[i] as number;
    if (changed.has(d)) continue;
    while (j < added.docs.length && (added.docs[j] as number) < d) takeAdded();
    out.docs.push(d);
    out.freqs.push(old.freqs[i] as number);
    out.places.push(old.starts.length ? [...old.places.subarray(old.starts[i], old.starts[i + 1])] : null);
  }
  while (j < added.docs.length) takeAdded();
  return out;
}

function postingList(g: Growing): PostingList {
  const n = g.docs.length;
  let total = 0;
  for (const p of g.places) total += p?.length ?? 0;
  const starts = new Uint32Array(total ? n + 1 : 0);
  const places = new Uint16Array(total);
  if (total) {
    for (let i = 0, at = 0; i < n; i++) {
      starts[i] = at;
      for (const o of g.places[i] ?? []) places[at++] = o;
      starts[i + 1] = at;
    }
  }
  return { docs: Uint32Array.from(g.docs), freqs: Float32Array.from(g.freqs), starts, places };
}
