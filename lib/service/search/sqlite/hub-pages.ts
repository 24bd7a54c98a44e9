import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AllowedPages } from './first-stage.ts';

/** A hub is a page with at least this authority (PageRank, the average page 1): five times the
 * average page's. 117 of the corpus's 5,058 pages are, and 901 of 10⁶ (decision 0139). */
export const HUB_AUTHORITY = 5;

/** The hubs, sought through the index `signals_authority` (schema.ts). Ordered by id in the
 * reader, not by SQLite: asked for in that order, SQLite scans every page's signals rather than
 * seek the few hubs (decision 0152). */
export const HUB_ROWS = `SELECT id, authority FROM signals WHERE authority >= ${HUB_AUTHORITY}`;

/** The hub pages of an index: their ids, ascending, and each one's authority. */
export type Hubs = { ids: readonly number[]; authority: Float64Array };

/**
 * The pages the rest of the index links to most (authority.ts), for a question's candidates
 * (decision 0139): a question's answer is mostly a manual's reference page (`os`, `stdtypes`), and
 * among a million pages that use a question's everyday words more often than it does, the first
 * stage's best pages need not hold it. Read once per index version.
 */
export class HubPages {
  readonly #rows: StatementSync;
  #hubs: Hubs | null = null;
  #version: number | null = null;

  constructor(db: DatabaseSync) {
    this.#rows = db.prepare(HUB_ROWS);
  }

  /** The hubs at `version`, of those `allowed` (all when null). */
  of(version: number, allowed: AllowedPages | null): Hubs {
    if (version !== this.#version) {
      this.#hubs = null;
      this.#version = version;
    }
    const hubs = (this.#hubs ??= this.#read());
    if (!allowed) return hubs;
    const keep: number[] = [];
    for (let i = 0; i < hubs.ids.length; i++) if (allowed[hubs.ids[i] as number]) keep.push(i);
    return { ids: keep.map((i) => hubs.ids[i] as number), authority: Float64Array.from(keep, (i) => hubs.authority[i] as number) };
  }

  /** Reads the hubs at `version` now, as the first of() would. */
  warm(version: number): void {
    this.of(version, null);
  }

  #read(): Hubs {
    const rows = (this.#rows.all() as { id: number; authority: number }[]).sort((a, b) => a.id - b.id);
    return { ids: rows.map((r) => r.id), authority: Float64Array.from(rows, (r) => r.authority) };
  }
}
