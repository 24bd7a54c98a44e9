import type { DefinitionHead } from './definitions.ts';
import { parseQuery, type Concept, type ParsedQuery } from './tokenize.ts';

/**
 * What a query is, before its words are searched (decision 0082). People and agents type two kinds
 * of query: a name or a term (`asyncio gather`, `log_min_messages`), and a question or a task in a
 * sentence (`convert hex string "deadbeef" to integer`, `how do I remove the element in list
 * `a` at index 1`). The second kind carries words that say little (`how do I`, `get`), and values
 * of the asker's own in quotes or back-ticks (`"deadbeef"`, `` `mylist` ``).
 *
 * Those literals say the query is a question, however short; their words stay searched. Taking
 * them out was measured and lost: on the natural questions 0.601 searched, 0.585 taken out (both
 * halves), 0.589 with back-ticked names alone taken out; many are the very thing asked about
 * (`'AND'`, `'utf-8'`, `'\n'`, `%Y`).
 */
export type Understood = {
  /** The quoted and back-ticked spans, as typed (without their quotes). */
  literals: string[];
  /** How much the query reads as a question or a task rather than a name, 0 to 1. */
  question: number;
};

/** A span in back-ticks, double quotes (straight or curly) or single quotes. A single quote opens
 * only where a word cannot go on (start, space, an opening bracket or `=`) and closes only where
 * one ends, so `don't` and `Python's` are not quotes. */
const LITERAL = /`[^`]*`|"[^"]*"|“[^”]*”|‘[^’]*’|(?<=^|[\s([{=,:])'[^'\n]*'(?=$|[\s)\]},.;:!?])/gu;

/** Words with this many or fewer of them make a name or a term, not a sentence. */
const TERM_WORDS = 3;
/** From this many words on, a query is read as a question whatever else it has. */
const SENTENCE_WORDS = 6;

/** Words that open or frame a question, which a question in a manual's words would not carry. */
const ASKING = new Set(
  'how what which why when where who whose whom can could should would do does did is are i me my we you your there way ways'.split(' '),
);

export function understand(query: string): Understood {
  const literals: string[] = [];
  const rest = query.replace(LITERAL, (m) => {
    literals.push(m.slice(1, -1));
    return ' ';
  });
  const outside = rest.split(/[^\p{L}\p{N}_.-]+/u).filter(Boolean);
  // Its words, the literals' among them, say how long the question is (counting only those outside
  // the literals did worse: 0.594 against 0.601).
  const words = query.split(/[^\p{L}\p{N}_.-]+/u).filter(Boolean);
  let question = Math.min(1, Math.max(0, (words.length - TERM_WORDS) / (SENTENCE_WORDS - TERM_WORDS)));
  // A literal, or a question word opening the query, says it is a question at any length.
  if (literals.length && outside.length) question = Math.max(question, 0.5);
  if (outside.length > 1 && ASKING.has((outside[0] as string).toLowerCase())) question = 1;
  return { literals: outside.length ? literals : [], question };
}

/** Words that carry little in a question (`get the list`, `use regex`, `how do I`): searched, and
 * counted for a fraction of a word. */
export const WEAK_WORDS = new Set([
  ...ASKING,
  ...'get gets getting got use uses using used make makes making want wants need needs like find finds given some any one also just only way it them its their this that these those which into from with without'.split(
    ' ',
  ),
]);

/** From how much a query reads as a question its weak words are not searched, and each of its words
 * is looked up as a definition's name, and as the abbreviation a name may be of it. */
export const QUESTION_FROM = 0.5;
/** A question's word looked up as a definition's name (`sorted`, `replace`), and its starts as the
 * names of the definitions it may spell out (`integer` for `int`, `dictionary` for `dict`): chosen on
 * the even half of the natural questions, confirmed on the odd half. */
const WORD_HEAD = 0.2;
const ABBREVIATED_HEAD = 0.4;

/** The words of a query as searched: those that say little in a question are searched as stop
 * words are (decision 0082). */
export function searchedWords(query: string, understood: Understood, language: string): ParsedQuery {
  const parsed = parseQuery(query, language);
  if (understood.question >= QUESTION_FROM)
    for (const c of parsed.concepts) if (c.parts.length === 1 && WEAK_WORDS.has(c.parts[0] as string)) c.stop = true;
  return parsed;
}

/** A value of the asker's own (decision 0165) is worth at most this share of the query's rarest
 * other word in what a passage, or the text around a link, holds of the query: chosen on the even
 * half of the natural questions, on the corpus alone and among 10⁶ pages (0 to 1; flat from 0 to
 * 0.5). */
const VALUE_WORTH = 0.25;

/** Which of `concepts` are values of the asker's own: words that stand in the query only inside
 * its quotes or back-ticks (`somefile.txt` in ``write line "Hello" to file `somefile.txt` ``), not
 * words it also has outside them. None when the query has no words outside its literals. */
export function ownValues(query: string, understood: Understood, concepts: readonly Concept[], language: string): boolean[] {
  if (!understood.literals.length) return concepts.map(() => false);
  const keys = (text: string) => new Set(parseQuery(text, language).concepts.map((c) => c.parts.join(' ')));
  const inside = keys(understood.literals.join(' '));
  const outside = keys(query.replace(LITERAL, ' '));
  return concepts.map((c) => inside.has(c.parts.join(' ')) && !outside.has(c.parts.join(' ')));
}

/**
 * What each concept of a question is worth (by its index: the idf of its rarest term, postings.ts
 * worth()) in the share of it a passage or a link's text holds, its own values (`values`,
 * ownValues()) at most VALUE_WORTH of the rarest other concept's. A value is what the asker works
 * on, not what the answer is about: `./test.sh` in ``call a shell script `./test.sh` using
 * subprocess`` is on no page of the manual, and among 10⁶ pages on a few others, where its idf
 * (12.3) outweighs every other word of the question together (5.6), so that no passage of the
 * page on subprocess held more than a quarter of the question. Values that are what is asked
 * about (`'utf-8'`, `%Y`) are common words, worth less than the cap already.
 */
export function questionWorth(worth: ReadonlyMap<number, number>, values: readonly boolean[]): Map<number, number> {
  let rarest = 0;
  for (const [i, w] of worth) if (!values[i]) rarest = Math.max(rarest, w);
  const out = new Map(worth);
  if (rarest > 0) for (const [i, w] of worth) if (values[i]) out.set(i, Math.min(w, VALUE_WORTH * rarest));
  return out;
}

/** What a question's words name beside the heads the query already has (decision 0082): each word
 * as a definition's name, and its starts of three letters or more (two short of the word at most)
 * as the names it may spell out. */
export function questionHeads(concepts: readonly Concept[], have: readonly DefinitionHead[], question: number): DefinitionHead[] {
  const seen = new Set(have.map((h) => h.head));
  const out: DefinitionHead[] = [];
  const add = (head: string, weight: number) => {
    if (seen.has(head)) return;
    seen.add(head);
    out.push({ head, weight: weight * question });
  };
  for (const c of concepts) add(c.parts.join(' '), WORD_HEAD);
  for (const c of concepts) {
    const word = c.parts.length === 1 ? (c.parts[0] as string) : '';
    for (let len = 3; len <= word.length - 2; len++) add(word.slice(0, len), ABBREVIATED_HEAD);
  }
  return out;
}
