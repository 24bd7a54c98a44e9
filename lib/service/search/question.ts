/**
 * What a query is, before its words are searched (decision 0082). People and agents type two kinds
 * of query: a name or a term (`asyncio gather`, `log_min_messages`), and a question or a task in a
 * sentence (`convert hex string "deadbeef" to integer`, `how do I remove the element in list
 * `a` at index 1`). The second kind carries words that say little (`how do I`, `get`) and
 * values that are the asker's own: quoted strings and back-ticked names are placeholders and
 * literals (`"deadbeef"`, `` `mylist` ``), which no page of the manual holds and which only pull
 * pages that happen to share a common word.
 */
export type Understood = {
  /** The query without its literals (unless nothing else is left), to be searched. */
  text: string;
  /** The quoted and back-ticked spans taken out, as typed (without their quotes). */
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
  const text = query.replace(LITERAL, (m) => {
    literals.push(m.slice(1, -1));
    return ' ';
  });
  const words = text.split(/[^\p{L}\p{N}_.-]+/u).filter(Boolean);
  const kept = words.length ? text.replace(/\s+/g, ' ').trim() : query;
  const count = words.length ? words.length : query.split(/\s+/).filter(Boolean).length;
  let question = Math.min(1, Math.max(0, (count - TERM_WORDS) / (SENTENCE_WORDS - TERM_WORDS)));
  // A literal, or a question word opening the query, says it is a question at any length.
  if (literals.length && words.length) question = Math.max(question, 0.5);
  if (words.length > 1 && ASKING.has((words[0] as string).toLowerCase())) question = 1;
  return { text: kept, literals: words.length ? literals : [], question };
}

/** Words that carry little in a question (`get the list`, `use regex`, `how do I`): searched, and
 * counted for a fraction of a word. */
export const WEAK_WORDS = new Set([
  ...ASKING,
  ...'get gets getting got use uses using used make makes making want wants need needs like find finds given some any one also just only way it them its their this that these those which into from with without'.split(
    ' ',
  ),
]);
