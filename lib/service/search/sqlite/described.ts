import type { DatabaseSync } from 'node:sqlite';
import { definitionDocuments, Descriptions, type DescribedRow, type DescriptionMatch } from '../descriptions.ts';
import type { Concept } from '../tokenize.ts';
import type { PostingsStage } from './postings.ts';
import { DEFINITIONS_META, DESCRIBED_LISTS_META } from './schema.ts';
import { StoredDescriptions } from './stored-descriptions.ts';

type Model = {
  readonly size: number;
  match(concepts: readonly (readonly string[])[], limit: number): DescriptionMatch[];
  trim?(): void;
};

/**
 * The index's definitions as documents of what they are for (descriptions.ts): as the index
 * stores them (stored-descriptions.ts), reading a question's own terms; in an index from before
 * they were stored (search_meta DEFINITIONS_META, schema 11), worked out from the `described` table
 * (each definition-list term of a page and the first words of its description) with the links
 * naming each definition (`links`, their text and context), read and put in the index's terms
 * once per index version, on the first question that asks. An index from before `described`
 * (schema 9) has no rows until its sources are indexed again, and answers as before.
 */
export class DescribedDefinitions {
  readonly #db: DatabaseSync;
  readonly #postings: PostingsStage;
  readonly #listBytes: number | undefined;
  #model: Model | null = null;

  /** `listBytes`: how much of the terms' lists of definitions it keeps (stored-descriptions.ts). */
  constructor(db: DatabaseSync, postings: PostingsStage, listBytes?: number) {
    this.#db = db;
    this.#postings = postings;
    this.#listBytes = listBytes;
  }

  /** Drops what was read (the index changed). */
  clear(): void {
    this.#model = null;
  }

  /** Forgets the least recently used of what was read past its limits (between queries only). */
  trim(): void {
    this.#model?.trim?.();
  }

  /** The `limit` pages whose definitions best answer a question of `concepts`, each with how well
   * its best one does, 0 to 1, best first. */
  pages(concepts: readonly Concept[], limit: number): Map<number, number> {
    const model = (this.#model ??= this.#open());
    const out = new Map<number, number>();
    if (!model.size) return out;
    const asked = concepts.map((c) => this.#postings.termsOf(c.parts).flat());
    for (const m of model.match(asked, limit)) out.set(m.page, m.share);
    return out;
  }

  #open(): Model {
    const stored = this.#has('definitions') ? this.#meta(DEFINITIONS_META) : undefined;
    if (!stored) return this.#read();
    // The common terms' lists packed, in an index that stores them (schema 14, decision 0131).
    const packed = this.#has('described_lists') ? this.#meta(DESCRIBED_LISTS_META) : undefined;
    const from = packed ? (JSON.parse(packed) as { from?: unknown }).from : undefined;
    return new StoredDescriptions(
      this.#db,
      JSON.parse(stored) as { count: number; most: number },
      typeof from === 'number' ? from : Infinity,
      this.#listBytes,
    );
  }

  /** search_meta's value of `key`. */
  #meta(key: string): string | undefined {
    return (this.#db.prepare('SELECT value FROM search_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  /** Whether the index file has `table` (a reader's stand-ins are temporary tables). */
  #has(table: string): boolean {
    return this.#db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(table) !== undefined;
  }

  /** The definitions' model worked out from `described` and `links`, in memory. */
  #read(): Descriptions {
    // A file not opened by the service since before schema 9 has no such table yet.
    if (!this.#has('described')) return new Descriptions([]);
    const rows = this.#db.prepare('SELECT page_id AS page, term, words FROM described').all() as {
      page: number;
      term: string;
      words: string;
    }[];
    if (!rows.length) return new Descriptions([]);
    const links = this.#db
      .prepare(
        `SELECT a.page_id AS page, l.text AS text, l.context AS context FROM links l JOIN aliases a ON a.key = l.target_key
         WHERE a.page_id IN (SELECT page_id FROM described) AND l.source_id != a.page_id`,
      )
      .all() as { page: number; text: string; context: string }[];
    const documents = definitionDocuments(rows, links, (words) => this.#postings.termsOnce(words));
    const described: DescribedRow[] = rows.map((r, i) => ({
      page: r.page,
      term: r.term,
      terms: documents[i]?.terms ?? [],
      links: documents[i]?.links ?? 0,
    }));
    return new Descriptions(described);
  }
}
