import type { Concept } from '../tokenize.ts';
import {
  bestCandidate,
  editsOf,
  editWord,
  likelihood,
  MAX_CORRECTED_LENGTH,
  MIN_CORRECTED_LENGTH,
  typistEdits,
  type Candidate,
  type Edit,
} from '../typos.ts';
import { pagesInAll, type ListedPages } from './page-bits.ts';
import type { PostingsStage, ScoredList } from './postings.ts';
import { FtsTokenizer } from './tokenizer.ts';

/** At most this many words of one query are corrected (the rest are searched as typed). */
const MAX_CORRECTED = 3;
/** Misspelt words whose corrections the index holds are remembered (a few hundred bytes each: the
 * held ones only, not the hundreds of edits considered). */
const WORDS_KEPT = 2000;

type Word = { concept: number; part: string; term: string };
type Option = { edit: Edit; spelling: string | null };
type Options = Map<string, Option>;
/** The corrections of a misspelt word that the index holds, with the edit behind each. */
type Considered = { options: Options; held: string[] };

/** A word is corrected when it has enough letters, and not too many, and is not a number. */
function correctable(w: Word): boolean {
  if (w.term === '') return false;
  const letters = w.part.match(/\p{L}/gu)?.length ?? 0;
  return letters >= MIN_CORRECTED_LENGTH && letters <= MAX_CORRECTED_LENGTH;
}

/**
 * Corrections of a query's misspelt words from the index's own vocabulary (decision 0080): a
 * word whose term the index does not hold is replaced by the likeliest term one edit away that
 * it does hold (typos.ts chooses), and written as the word the searcher would have typed. A word
 * the index holds is never corrected. Costs nothing for a query whose words are all known (their
 * postings are read for the search anyway); a misspelt word costs one lookup of its few hundred
 * edits in the terms' index and the postings of those that exist.
 */
export class Speller {
  readonly #stage: PostingsStage;
  /** Its own, so that the hundreds of edits of a misspelt word do not crowd out the query words
   * the stage's tokenizer remembers. */
  readonly #tokenizer = new FtsTokenizer(20_000);
  /** The corrections the index holds for the word being corrected: the edit behind each term,
   * and the word to show for it once known. */
  #options: Options = new Map();
  /** What was considered for each misspelt word (by word as typed and its term), while the index
   * stays the same: which of its edits the index holds does not depend on the query. Only those are
   * remembered, with their edits: all a later query reads of them. Every edit considered would take
   * about 200 bytes (a word of ten letters has about 600 edits, one of forty about 2,000), and a
   * stream of distinct misspelt words, which any key can send, would hold gigabytes (decision 0161). */
  readonly #considered = new Map<string, Considered>();

  constructor(stage: PostingsStage) {
    this.#stage = stage;
  }

  /** Forgets what was considered (the index changed). */
  clear(): void {
    this.#considered.clear();
  }

  /** The corrections (lower-case word as typed -> corrected word), empty when there is none. */
  correct(concepts: readonly Concept[]): Map<string, string> {
    const fixes = new Map<string, string>();
    const real = concepts.filter((c) => !c.stop);
    const words: Word[] = real.flatMap((c, concept) => c.parts.map((part) => ({ concept, part, term: '' })));
    const termsOf = this.#stage.termsOf(words.map((w) => w.part));
    words.forEach((w, i) => {
      const terms = termsOf[i] as readonly string[];
      // A word the index would split into several terms (some scripts) is not corrected.
      if (terms.length === 1) w.term = terms[0] as string;
    });
    // What the query's words hold (read for the search anyway).
    const phrases = real.map((c) => this.#phraseTerms(c));
    const lists = this.#stage.lists([...new Set([...phrases.flat(), ...words.filter((w) => w.term).map((w) => w.term)])]);
    const unknown = words.filter((w) => correctable(w) && !lists.has(w.term)).slice(0, MAX_CORRECTED);
    for (const w of unknown) {
      // The context: the pages holding the query's other words and the other parts of the
      // identifier the word is in (`pg_size_btes`: `bytes` beside `pg` and `size`, not `bes`).
      const others: (ListedPages | null)[] = [];
      real.forEach((_, i) => {
        if (i !== w.concept && !unknown.some((u) => u.concept === i)) others.push(pagesOf(phrases[i] as string[], lists));
      });
      for (const s of words) if (s.concept === w.concept && s !== w && !unknown.includes(s)) others.push(pagesOf([s.term], lists));
      const together = intersectAll(others);
      // Other words that never occur together say nothing about which correction fits them.
      const concept = real[w.concept] as Concept;
      const ident = concept.compound ? concept.parts : null;
      const fix = this.#correction(w, together && together.length > 0 ? together : null, ident);
      if (fix) fixes.set(w.part, fix);
    }
    return fixes;
  }

  /** The terms standing for a concept in the first stage: an identifier's joined form, else its parts. */
  #phraseTerms(c: Concept): string[] {
    const t = this.#stage.termsOf(c.compound ? [c.compound] : c.parts);
    return t.flat();
  }

  /**
   * The likeliest correction of one word: among the terms one edit away from its term, and the
   * terms of the words one typist's edit away from the word as typed (the stemmer may have read
   * the mistake into the ending: `diaonal` is not one edit from `diagon`, `diagonal`'s term).
   */
  #correction(w: Word, context: Uint32Array | null, ident: readonly string[] | null): string | null {
    const { options, held } = this.#consider(w);
    this.#options = options;
    if (!held.length) return null;
    let candidates: Candidate[] = [];
    for (const [term, list] of this.#stage.lists(held)) {
      const { edit } = options.get(term) as { edit: Edit };
      candidates.push({
        term,
        edit,
        pages: list.docs.length,
        together: context ? pagesInAll([list, { docs: context, pages: null }]).length : null,
      });
    }
    // In an identifier, the corrections that make an identifier the index holds come first.
    if (ident) {
      const joined = new Map<string, string>();
      for (const c of candidates) {
        const spelling = this.#spellingOf(w, c.term);
        if (spelling) joined.set(`${ident.map((p) => (p === w.part ? spelling : p)).join('')}0`, c.term);
      }
      const whole = new Set(this.#stage.held([...joined.keys()]).map((j) => joined.get(j)));
      if (whole.size) candidates = candidates.filter((c) => whole.has(c.term));
    }
    const best = bestCandidate(candidates);
    return best ? this.#spellingOf(w, best.term) : null;
  }

  /** The corrections considered for a word, and those the index holds (remembered). */
  #consider(w: Word): Considered {
    const key = `${w.part}\u0000${w.term}`;
    const kept = this.#considered.get(key);
    if (kept) return kept;
    const options: Options = new Map();
    const offer = (term: string, edit: Edit, spelling: string | null) => {
      const seen = options.get(term);
      if (term !== w.term && (!seen || likelihood(edit) > likelihood(seen.edit))) options.set(term, { edit, spelling });
    };
    for (const e of editsOf(w.term)) offer(e.text, e, null);
    const typed = typistEdits(w.part);
    this.#tokenizer.learn(typed.map((e) => e.text));
    for (const e of typed) {
      const terms = this.#tokenizer.terms(e.text);
      if (terms.length === 1) offer(terms[0] as string, e, e.text);
    }
    const held = this.#stage.held([...options.keys()]);
    const considered = { options: new Map(held.map((term) => [term, options.get(term) as Option])), held };
    if (this.#considered.size >= WORDS_KEPT) this.#considered.clear();
    this.#considered.set(key, considered);
    return considered;
  }

  #spellingOf(w: Word, term: string): string | null {
    const o = this.#options.get(term);
    if (!o) return null;
    return o.spelling ?? (o.spelling = this.#spelling(w, term, o.edit));
  }

  /** The word to show for a term corrected by an edit of the term: the same edit of the word as
   * typed, when that gives the term (the stemmer changed the ending only). */
  #spelling(w: Word, term: string, edit: Edit): string | null {
    const same = editWord(w.part, w.term, edit);
    return same !== null && this.#tokenizer.terms(same).join(' ') === term ? same : null;
  }

  close(): void {
    this.#tokenizer.close();
  }
}

/** The pages holding every term of a phrase: a term's own list (with its bitmap, when it has
 * one), or the pages its terms' lists share; null for no terms. */
function pagesOf(terms: readonly string[], lists: ReadonlyMap<string, ScoredList>): ListedPages | null {
  const held: ScoredList[] = [];
  for (const t of terms) {
    const list = lists.get(t);
    if (!list) return { docs: new Uint32Array(0), pages: null };
    held.push(list);
  }
  if (held.length <= 1) return held[0] ?? null;
  return { docs: pagesInAll(held), pages: null };
}

/** The pages in every list; null for no lists (no constraint). */
function intersectAll(lists: readonly (ListedPages | null)[]): Uint32Array | null {
  const constraints = lists.filter((l) => l !== null);
  return constraints.length ? pagesInAll(constraints) : null;
}
