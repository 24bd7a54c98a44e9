import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { siblingShare } from '../rank.ts';
import { DEF_BESIDE } from '../page-definitions.ts';
import { DEF_NEAR } from './schema.ts';

/**
 * How many names of a namespace each of some pages defines (rank.ts `siblings`, decision 0137). A
 * dotted name's definition head is its parts joined by spaces (definitions.ts: `object rmul` for
 * `object.__rmul__`), so a namespace's names are the heads from `object ` up to `object!`, and
 * `defs_page` (page_id, head) reads each page's as one range. Names an index anchor only stands
 * beside are not definitions, and do not count (nor an old index's words near an anchor).
 */
export class NamespaceSiblings {
  readonly #count: StatementSync;

  constructor(db: DatabaseSync) {
    this.#count = db.prepare(
      `SELECT page_id AS id, COUNT(*) AS n FROM defs
       WHERE page_id IN (SELECT value FROM json_each(?)) AND head > ? AND head < ? AND (kind & ${DEF_BESIDE}) = 0 AND kind != ${DEF_NEAR}
       GROUP BY page_id`,
    );
  }

  /** Each of `ids`' siblingShare() in the namespace of `namespaces` where it defines most (absent: 0). */
  shares(namespaces: readonly string[], ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    if (!namespaces.length || !ids.length) return out;
    const list = JSON.stringify(ids);
    for (const ns of new Set(namespaces))
      for (const { id, n } of this.#count.all(list, `${ns} `, `${ns}!`) as { id: number; n: number }[]) {
        const share = siblingShare(n);
        if (share > (out.get(id) ?? 0)) out.set(id, share);
      }
    return out;
  }
}
