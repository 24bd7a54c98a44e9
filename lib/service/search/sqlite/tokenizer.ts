import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { StringNumbers } from '../string-numbers.ts';

/** The tokenizer of the index's full-text table, in FTS5's own terms (schema.ts uses it too). */
export const FTS_TOKENIZE = 'porter unicode61 remove_diacritics 2';
/** Tokens FTS5 leaves as they are: lower-case ASCII letters and digits that unicode61 cannot fold
 * and the porter stemmer does not touch, because they end in a digit (no suffix rule matches) or
 * are shorter than three characters. Most identifiers' joined forms and all numbers are such:
 * `/^(?:[a-z0-9]*[0-9]|[a-z0-9]{1,2})$/`, tested a character at a time (a third of a page's
 * distinct tokens are, and a regular expression's call cost more than the test). */
export function unchanged(token: string): boolean {
  const n = token.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = token.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return false;
  }
  const last = token.charCodeAt(n - 1);
  return n <= 2 || (last >= 0x30 && last <= 0x39);
}
/** Separates tokens in one tokenizer row: longer than any token (tokenize.ts keeps up to 64
 * characters), so it cannot be one, and porter passes tokens over 64 bytes through unchanged. */
const SEPARATOR = 's'.repeat(80);

/**
 * The full-text index's terms for our tokens (tokenize.ts): case-folded, diacritics removed and
 * stemmed exactly as FTS5 does it, because FTS5 does it, in a private in-memory table of its own
 * (decision 0018). The postings (postings.ts) and every query get their terms from here, so they
 * agree with the FTS5 table word for word. A token usually gives one term (`running` -> `run`); a
 * word that unicode61 splits (it treats some scripts' combining marks as separators) gives
 * several, a token of separators none. Results are remembered, so a word costs one trip through
 * SQLite, in a batch with others.
 */
export class FtsTokenizer {
  readonly #db = new DatabaseSync(':memory:');
  readonly #insert: StatementSync;
  readonly #read: StatementSync;
  readonly #clear: StatementSync;
  /** The tokens remembered, and each one's terms by its number (string-numbers.ts). */
  readonly #memo = new StringNumbers();
  readonly #memoTerms: (readonly string[])[] = [];
  readonly #limit: number;

  /** `limit`: distinct words remembered before the memo starts over (about 100 bytes each): an
   * indexer meets a whole vocabulary, a query reader only what is searched. */
  constructor(limit = 1_000_000) {
    this.#limit = limit;
    // Contentless: the row is only ever read back as its terms, and is cleared whole.
    this.#db.exec(`CREATE VIRTUAL TABLE words USING fts5(w, content = '', tokenize = '${FTS_TOKENIZE}');
      CREATE VIRTUAL TABLE instances USING fts5vocab(words, instance);`);
    this.#insert = this.#db.prepare('INSERT INTO words (rowid, w) VALUES (1, ?)');
    this.#read = this.#db.prepare('SELECT term, "offset" FROM instances');
    this.#read.setReturnArrays(true);
    this.#clear = this.#db.prepare(`INSERT INTO words (words) VALUES ('delete-all')`);
  }

  /** The terms of a token if known without a trip through SQLite. */
  known(token: string): readonly string[] | undefined {
    if (unchanged(token)) return [token];
    const n = this.#memo.find(token);
    return n < 0 ? undefined : this.#memoTerms[n];
  }

  /** The terms of one token. */
  terms(token: string): readonly string[] {
    const known = this.known(token);
    if (known) return known;
    return this.#lookUp([token], true)[0] as readonly string[];
  }

  /** Tokenizes, in one round trip, those of `tokens` not known yet. */
  learn(tokens: Iterable<string>): void {
    this.#lookUp([...tokens], true);
  }

  /** The terms of each of `tokens`, in one round trip for those not known, which are remembered. */
  termsOf(tokens: readonly string[]): (readonly string[])[] {
    return this.#lookUp(tokens, true);
  }

  /**
   * The terms of each of `tokens`, in one round trip for those not known, without remembering
   * them: for a whole vocabulary read once (described.ts), which would otherwise fill the memo
   * past its limit and leave every query after it to start it over.
   */
  termsOnce(tokens: readonly string[]): (readonly string[])[] {
    return this.#lookUp(tokens, false);
  }

  /** Each token's terms: the known ones from memory, the others in one trip, remembered or not. */
  #lookUp(tokens: readonly string[], remember: boolean): (readonly string[])[] {
    const out = new Array<readonly string[]>(tokens.length);
    const fresh: string[] = [];
    const at: number[] = [];
    tokens.forEach((t, i) => {
      const known = this.known(t);
      if (known) out[i] = known;
      else {
        fresh.push(t);
        at.push(i);
      }
    });
    if (!fresh.length) return out;
    if (remember && this.#memo.size + fresh.length > this.#limit) {
      this.#memo.clear();
      this.#memoTerms.length = 0;
    }
    this.#tokenize(fresh).forEach((terms, j) => {
      if (remember) this.#memoTerms[this.#memo.of(fresh[j] as string)] = terms;
      out[at[j] as number] = terms;
    });
    return out;
  }

  /** Each token's terms, through the private table: its instances come in term order, each with
   * its place in the row, which sorting by place puts back in the row's order. */
  #tokenize(tokens: readonly string[]): string[][] {
    let instances: [string, number][];
    this.#db.exec('BEGIN');
    try {
      this.#insert.run(tokens.join(` ${SEPARATOR} `));
      instances = this.#read.all() as unknown as [string, number][];
      this.#clear.run();
    } finally {
      this.#db.exec('COMMIT');
    }
    const out: string[][] = [[]];
    for (const [term] of instances.sort((x, y) => x[1] - y[1])) {
      if (term !== SEPARATOR) (out[out.length - 1] as string[]).push(term);
      else out.push([]);
    }
    return out;
  }

  close(): void {
    this.#db.close();
  }
}
