import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * A page's text as the index keeps it (decision 0085): its blocks (lines) in chunks of
 * BLOCKS_PER_CHUNK, in `page_text`. Read whole when the page's postings are built again, and a few
 * blocks at a time for the snippets of a query's results (snippet.ts passageAt), which an index
 * from before kept as rows of their own: the same text twice, a third of that index.
 *
 * Row id = page id × TEXT_SLOTS + the chunk's number, so that the chunk holding a block is known
 * without a read, and the chunks of all of a query's results are read in one statement.
 * Not packed: a query reads ten chunks or so, and zlib's inflate took 17 µs a chunk (8 µs of it
 * the call's own cost, whatever the size), a fifth of a query's median time.
 */
export const TEXT_SLOTS = 65_536;
/** A chunk's blocks: about 2.5 KB of a documentation page, two to four passages' worth. */
export const BLOCKS_PER_CHUNK = 16;

/** Accessor over a page's blocks: the i-th, or undefined where not read or past the last. */
export type Blocks = (i: number) => string | undefined;

const among = 'IN (SELECT value FROM json_each(?))';

export class PageText {
  readonly #q: Record<'put' | 'drop' | 'whole' | 'chunks', StatementSync>;

  constructor(db: DatabaseSync) {
    this.#q = {
      put: db.prepare('INSERT INTO page_text (id, text) VALUES (?, ?)'),
      drop: db.prepare('DELETE FROM page_text WHERE id BETWEEN ? AND ?'),
      whole: db.prepare('SELECT text FROM page_text WHERE id BETWEEN ? AND ? ORDER BY id'),
      chunks: db.prepare(`SELECT id, text FROM page_text WHERE id ${among}`),
    };
  }

  /** Replaces page `id`'s text (one chunk at least, so that an empty text is told from none). */
  write(id: number, body: string): void {
    this.drop(id);
    const lines = body.split('\n');
    const chunks = Math.ceil(lines.length / BLOCKS_PER_CHUNK);
    if (chunks > TEXT_SLOTS) throw new Error(`page ${id}: its text has too many blocks to keep (${lines.length})`);
    for (let k = 0; k < chunks; k++)
      this.#q.put.run(id * TEXT_SLOTS + k, lines.slice(k * BLOCKS_PER_CHUNK, (k + 1) * BLOCKS_PER_CHUNK).join('\n'));
  }

  drop(id: number): void {
    this.#q.drop.run(id * TEXT_SLOTS, id * TEXT_SLOTS + TEXT_SLOTS - 1);
  }

  /** Page `id`'s text, or null when the index keeps none for it (a page stored by a version before
   * decision 0085 has it in `pages.body`). */
  whole(id: number): string | null {
    const rows = this.#q.whole.all(id * TEXT_SLOTS, id * TEXT_SLOTS + TEXT_SLOTS - 1) as { text: string }[];
    return rows.length ? rows.map((r) => r.text).join('\n') : null;
  }

  /** The blocks `from` to `to` of each page asked (`spans`, by page id), read together: each page's
   * accessor (which also has the other blocks of the chunks read), or none for a page whose text
   * the index does not keep. */
  blocks(spans: ReadonlyMap<number, readonly [from: number, to: number]>): Map<number, Blocks> {
    const wanted: number[] = [];
    for (const [id, [from, to]] of spans)
      for (let k = Math.floor(from / BLOCKS_PER_CHUNK); k <= Math.floor(to / BLOCKS_PER_CHUNK); k++) wanted.push(id * TEXT_SLOTS + k);
    const lines = new Map<number, string[]>();
    if (wanted.length)
      for (const r of this.#q.chunks.all(JSON.stringify(wanted)) as { id: number; text: string }[]) lines.set(r.id, r.text.split('\n'));
    const out = new Map<number, Blocks>();
    for (const [id, [from]] of spans) {
      const base = id * TEXT_SLOTS;
      // A page's chunks run from 0 without a gap: none holding `from`, none after it either.
      if (!lines.has(base + Math.floor(from / BLOCKS_PER_CHUNK))) continue;
      out.set(id, (i) => lines.get(base + Math.floor(i / BLOCKS_PER_CHUNK))?.[i % BLOCKS_PER_CHUNK]);
    }
    return out;
  }
}
