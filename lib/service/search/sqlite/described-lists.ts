import type { DatabaseSync } from 'node:sqlite';
import { DESCRIBED_LISTS_META } from './schema.ts';

/**
 * The definitions holding each common term (described_terms), packed in a row of its own
 * (`described_lists`, decision 0131): reading a term 280,000 definitions hold from FTS5 took 50 to
 * 130 ms at 10⁶ pages and gave its ids as text; its packed row reads and unpacks in about 12. A term
 * fewer than `from` definitions hold is read from FTS5 as before (a fraction of a millisecond).
 */

/** The fewest definitions a term's list is stored packed for: at 10⁶ pages, 3,768 terms of 1.5
 * million, holding 88 % of the lists' ids. */
export const PACKED_FROM = 1000;

/** The definitions holding a term (an FTS5 query of it, `quoted`), ascending, as one text of their
 * ids (`idsOf` reads it): a reader's list of a rarer term, and what a packed list is made of. */
export const LIST_FROM_FTS =
  'SELECT group_concat(id) AS ids FROM (SELECT rowid AS id FROM described_terms WHERE described_terms MATCH ? ORDER BY rowid)';

/** A term as an FTS5 query of that term alone (quotes doubled). */
export const quoted = (term: string) => `"${term.replaceAll('"', '""')}"`;

/** The ids of a comma-separated list of non-negative integers (SQLite's group_concat of rowids),
 * in its order: read digit by digit, a tenth of the time of splitting the text and converting
 * each part (a common word's list at 10⁶ pages holds 280,000 ids). */
export function idsOf(text: string): Float64Array {
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 44) n++;
  const ids = new Float64Array(n);
  let k = 0;
  let id = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      ids[k++] = id;
      id = 0;
    } else id = id * 10 + (c - 48);
  }
  ids[k] = id;
  return ids;
}

/** Ascending ids (integers below 2^53) as their count and the differences between them, each a
 * varint of 7 bits a byte, low first (a page's definitions are 1 apart, its neighbours' a few
 * thousand). */
export function packIds(ids: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(8 * (ids.length + 1));
  let n = 0;
  const put = (v: number) => {
    while (v >= 128) {
      out[n++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    out[n++] = v;
  };
  put(ids.length);
  let last = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (!Number.isSafeInteger(id) || id < last || (i > 0 && id === last))
      throw new Error(`packIds: ids must be ascending integers (${id} after ${last})`);
    put(id - last);
    last = id;
  }
  return out.slice(0, n);
}

/** The ids packIds() packed; a blob that ends early or runs on is refused. */
export function unpackIds(blob: Uint8Array): Float64Array {
  let at = 0;
  const next = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (at >= blob.length) throw new Error('packed definition list ends early');
      const b = blob[at++] as number;
      v += (b & 127) * scale;
      if (b < 128) return v;
      scale *= 128;
    }
  };
  const n = next();
  if (n > blob.length) throw new Error('packed definition list ends early');
  const ids = new Float64Array(n);
  let id = 0;
  for (let i = 0; i < n; i++) ids[i] = id += next();
  if (at !== blob.length) throw new Error('packed definition list: bytes left over');
  return ids;
}

/**
 * Stores again the packed list of every term `from` or more definitions hold, and `from` in
 * search_meta (DESCRIBED_LISTS_META), in the caller's transaction: the lists always stand as
 * described_terms does. Returns how many lists it stored.
 */
export function storeDescribedLists(db: DatabaseSync, from = PACKED_FROM): number {
  db.exec('DELETE FROM described_lists');
  const terms = db.prepare('SELECT term FROM described_vocab WHERE doc >= ?').all(from) as { term: string }[];
  const list = db.prepare(LIST_FROM_FTS);
  const put = db.prepare('INSERT INTO described_lists (term, ids) VALUES (?, ?)');
  for (const { term } of terms) {
    const ids = (list.get(quoted(term)) as { ids: string | null }).ids;
    if (ids) put.run(term, packIds(idsOf(ids)));
  }
  db.prepare('INSERT OR REPLACE INTO search_meta (key, value) VALUES (?, ?)').run(DESCRIBED_LISTS_META, JSON.stringify({ from }));
  return terms.length;
}
