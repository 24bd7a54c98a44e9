import type { DatabaseSync } from 'node:sqlite';
import { Descriptions, namedBy, type DescribedRow } from '../descriptions.ts';
import type { Concept } from '../tokenize.ts';
import type { PostingsStage } from './postings.ts';

/**
 * The index's definitions as documents of what they are for (descriptions.ts): the `described`
 * table (each definition-list term of a page and the first words of its description, stored with
 * the page) with the links naming each definition (`links`, their text and context), read and
 * put in the index's terms (the postings' tokenizer) once per index version, on the first question
 * that asks. An index from before `described` (schema 9) has no rows until its sources are indexed
 * again, and answers as before.
 */
export class DescribedDefinitions {
  readonly #db: DatabaseSync;
  readonly #postings: PostingsStage;
  #model: Descriptions | null = null;

  constructor(db: DatabaseSync, postings: PostingsStage) {
    this.#db = db;
    this.#postings = postings;
  }

  /** Drops what was read (the index changed). */
  clear(): void {
    this.#model = null;
  }

  /** The `limit` pages whose definitions best answer a question of `concepts`, each with how well
   * its best one does, 0 to 1, best first. */
  pages(concepts: readonly Concept[], limit: number): Map<number, number> {
    const model = (this.#model ??= this.#read());
    const out = new Map<number, number>();
    if (!model.size) return out;
    const asked = concepts.map((c) => this.#postings.termsOf(c.parts).flat());
    for (const m of model.match(asked, limit)) out.set(m.page, m.share);
    return out;
  }

  #read(): Descriptions {
    // A file not opened by the service since before schema 9 has no such table yet.
    if (!this.#db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'described'").get()) return new Descriptions([]);
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
    const named = namedBy(rows, links);
    const words = rows.map((r, i) => [...r.words.split(' '), ...(named[i]?.words ?? [])]);
    const vocabulary = [...new Set(words.flat())];
    const terms = this.#postings.termsOnce(vocabulary);
    const termsOf = new Map(vocabulary.map((w, i) => [w, terms[i] ?? []]));
    const described: DescribedRow[] = rows.map((r, i) => ({
      page: r.page,
      term: r.term,
      terms: (words[i] ?? []).flatMap((w) => termsOf.get(w) ?? []),
      links: named[i]?.links ?? 0,
    }));
    return new Descriptions(described);
  }
}
