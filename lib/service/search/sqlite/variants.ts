import type { Concept } from '../tokenize.ts';
import { blendPostings } from './blend.ts';
import type { Phrase, PostingList } from './postings.ts';

/** What one other form of a word counts for against the word as typed (decision 0083). */
export const VARIANT_WEIGHT = 0.5;

/** The name a blend goes by among a query's posting lists: not a term the index can hold (terms
 * have no control characters). */
const blendKey = (concept: number) => `\u0001forms${concept}`;

/**
 * The first stage's phrases with each word's other forms (Concept.variants, inflections.ts) in: a
 * word's one-term phrase becomes one blended list of the word and its forms (blend.ts), each form
 * at VARIANT_WEIGHT; a word the index does not hold at all is searched as its forms. The blends go
 * into `lists` under names of their own. `fetch` reads posting lists (those the index holds).
 */
export function withVariants(
  phrases: readonly Phrase[],
  concepts: readonly Concept[],
  lists: Map<string, PostingList>,
  fetch: (terms: readonly string[]) => Map<string, PostingList>,
): Phrase[] {
  const out = [...phrases];
  concepts.forEach((c, i) => {
    if (!c.variants?.length) return;
    const own = out.filter((p) => p.concept === i);
    const word = own.length === 1 && own[0]?.terms.length === 1 ? own[0] : null;
    // A word split into several terms, or already read as the end of other words, keeps its phrases.
    if (own.length && !word) return;
    const found = fetch(c.variants);
    const parts: { list: PostingList; weight: number }[] = [];
    const exact = word ? lists.get(word.terms[0] as string) : undefined;
    if (exact) parts.push({ list: exact, weight: 1 });
    for (const v of c.variants) {
      const list = found.get(v);
      if (list) parts.push({ list, weight: VARIANT_WEIGHT });
    }
    if (!parts.length) return;
    const key = blendKey(i);
    lists.set(key, blendPostings(parts));
    if (word) out[out.indexOf(word)] = { ...word, terms: [key] };
    else out.push({ terms: [key], concept: i, weight: 1 });
  });
  return out;
}
