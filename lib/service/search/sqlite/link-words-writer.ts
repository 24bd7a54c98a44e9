import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ChunkRow, chunkOf, packChunk, type ChunkEntry } from './link-word-chunks.ts';
import type { LinkWords } from './page-build.ts';

/**
 * Keeps `link_word_chunks` (link-word-chunks.ts) in step with the pages. The index writer reports
 * each page it built again, with its link words, or dropped, in ascending id order; the entries of
 * one chunk of ids wait here, and when the ids pass into the next chunk (or at flush()) each word's
 * row of that chunk is written once: the row it had, without the pages reported, and with their
 * new entries. A fresh index has no rows to read back; an index built again in part reads the rows
 * of the chunks it touches only. Call page() and flush() inside the caller's transactions.
 */
export class LinkWordsWriter {
  readonly #q: Record<'rows' | 'put' | 'drop', StatementSync>;
  /** The chunk being gathered (−1: none), the pages of it reported, and their entries by word. */
  #chunk = -1;
  #reported: number[] = [];
  #entries = new Map<string, ChunkEntry[]>();
  #lastId = -1;

  constructor(db: DatabaseSync) {
    this.#q = {
      rows: db.prepare('SELECT head, data FROM link_word_chunks WHERE chunk = ?'),
      put: db.prepare('INSERT OR REPLACE INTO link_word_chunks (head, chunk, data) VALUES (?, ?, ?)'),
      drop: db.prepare('DELETE FROM link_word_chunks WHERE head = ? AND chunk = ?'),
    };
  }

  /** A page built again with the words of the blocks its inbound links stand in, or dropped (null). */
  page(id: number, words: LinkWords | null): void {
    if (id <= this.#lastId) throw new Error(`page ${id} reported after page ${this.#lastId}: pages come in ascending id order, once`);
    this.#lastId = id;
    const chunk = chunkOf(id);
    if (chunk !== this.#chunk) {
      this.#write();
      this.#chunk = chunk;
    }
    this.#reported.push(id);
    if (!words) return;
    for (let k = 0, b = 0; k < words.words.length; k++) {
      const n = words.blockCounts[k] as number;
      const word = words.words[k] as string;
      const entry = { id, mask: words.masks[k] as number, blocks: words.blocks.slice(b, b + n) };
      b += n;
      const list = this.#entries.get(word);
      if (list) list.push(entry);
      else this.#entries.set(word, [entry]);
    }
  }

  /** Writes the rows of the chunk gathered so far: the last pages are reported; the next may
   * start again from any id. */
  flush(): void {
    this.#write();
    this.#lastId = -1;
  }

  #write(): void {
    const chunk = this.#chunk;
    if (chunk < 0) return;
    const reported = new Set(this.#reported);
    const fresh = this.#entries;
    const write = (head: string, entries: ChunkEntry[]) => {
      if (entries.length) this.#q.put.run(head, chunk, packChunk(entries));
      else this.#q.drop.run(head, chunk);
    };
    for (const r of this.#q.rows.all(chunk) as { head: string; data: Uint8Array }[]) {
      const kept = new ChunkRow(r.data, chunk).entries().filter((e) => !reported.has(e.id));
      const added = fresh.get(r.head);
      fresh.delete(r.head);
      write(r.head, added ? kept.concat(added).sort((a, b) => a.id - b.id) : kept);
    }
    for (const head of [...fresh.keys()].sort()) write(head, fresh.get(head) as ChunkEntry[]);
    this.#chunk = -1;
    this.#reported = [];
    this.#entries = new Map();
  }

  /** Forgets what was gathered and not written (after a failed finish()). */
  discard(): void {
    this.#chunk = -1;
    this.#reported = [];
    this.#entries = new Map();
    this.#lastId = -1;
  }
}
