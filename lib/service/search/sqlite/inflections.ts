import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { foldLatin, stemmerOf, type Stemmer } from '../stems.ts';
import type { Concept } from '../tokenize.ts';
import { stopWordsOf } from '#shared/stop-words.ts';

/** A stem shorter than this finds too many unrelated words that merely begin with it. */
const MIN_STEM = 4;
/** Terms read from the index for one word, and the longest ending a form may add to its stem. */
const SCANNED = 400;
const MAX_ENDING = 8;
/** Forms kept for one word (the shortest first), and stems remembered. */
const MAX_VARIANTS = 8;
const STEMS_KEPT = 50_000;
const LATIN = /^[a-z\u00C0-\u024F]/;

/**
 * The other forms of a query's words in the request's language that the index holds (decision
 * 0083), without rebuilding the index: the index's terms are English porter stems of every
 * language, so a French, German or Russian word and its inflections are often different terms.
 * The word is stemmed with its language's Snowball stemmer (stems.ts); the index's terms that
 * begin with that stem (one range of the postings' primary key) and stem to the same stem are
 * the word's forms. The first stage scores them with the word, below it (blend.ts).
 */
export class Inflections {
  readonly #db: DatabaseSync;
  #range: StatementSync | null = null;
  readonly #stems = new Map<string, string>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * The concepts with `variants` added to each plain word (not an identifier, not a stop word)
   * whose language has a stemmer. `termsOf` gives the index's terms of words (the first stage's
   * tokenizer), so the word's own term is not counted again as a form of it.
   */
  expand(concepts: readonly Concept[], language: string, termsOf: (words: readonly string[]) => (readonly string[])[]): Concept[] {
    const stem = stemmerOf(language);
    if (!stem) return [...concepts];
    const words = concepts.map((c) =>
      c.parts.length === 1 && !c.stop && /^\p{L}+$/u.test(c.parts[0] as string) ? (c.parts[0] as string) : null,
    );
    const own = termsOf(words.filter((w): w is string => w !== null));
    let k = 0;
    return concepts.map((c, i) => {
      const word = words[i];
      if (word == null) return c;
      const exact = own[k++] as readonly string[];
      const variants = this.#forms(word, exact, stem, language);
      return variants.length ? { ...c, variants } : c;
    });
  }

  /** The index's terms for other forms of `word`, shortest first. */
  #forms(word: string, exact: readonly string[], stem: Stemmer, language: string): string[] {
    const targets = new Set([foldLatin(stem(word)), foldLatin(stem(foldLatin(word)))]);
    const stemmed = foldLatin(stem(word));
    if ([...stemmed].length < MIN_STEM) return [];
    // The index's porter may have changed the stem's last letter (`y` → `i`, a dropped `e`).
    const prefix = stemmed.length > 4 ? stemmed.slice(0, -1) : stemmed;
    this.#range ??= this.#db.prepare('SELECT term FROM postings WHERE term >= ? AND term < ? ORDER BY term LIMIT ?');
    const rows = this.#range.all(prefix, `${prefix}\u{10FFFF}`, SCANNED) as { term: string }[];
    const forms: string[] = [];
    const stops = stopWordsOf(language);
    for (const { term } of rows) {
      if (exact.includes(term) || term.length > stemmed.length + MAX_ENDING || stops.has(term)) continue;
      // A Latin-script term that is the bare stem is mostly English's porter stem of some other
      // word (`dat`, `serv`, `don` for `daten`, `servers`, `données`); other scripts' terms are words.
      if (targets.has(term) ? LATIN.test(term) : !targets.has(this.#stemOf(term, stem, language))) continue;
      forms.push(term);
    }
    return forms.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, MAX_VARIANTS);
  }

  #stemOf(term: string, stem: Stemmer, language: string): string {
    const key = `${language}:${term}`;
    let s = this.#stems.get(key);
    if (s === undefined) {
      if (this.#stems.size >= STEMS_KEPT) this.#stems.clear();
      this.#stems.set(key, (s = foldLatin(stem(term))));
    }
    return s;
  }
}
