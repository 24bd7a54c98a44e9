import type { Concept } from '../tokenize.ts';

/** FTS5 query expressions. Every token is quoted, so no user input is read as FTS5 syntax. */
const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** One concept: a word, or an identifier as a phrase of its parts or as its joined form. */
export function matchConcept(c: Concept): string {
  if (c.parts.length === 1) return quote(c.parts[0] as string);
  const phrase = quote(c.parts.join(' '));
  return c.compound ? `${phrase} OR ${quote(c.compound)}` : phrase;
}

/** Pages with any of the concepts (and joined forms of adjacent words): the candidate set. */
export function matchAny(concepts: readonly Concept[], joins: readonly string[]): string {
  return [...concepts.map((c) => `(${matchConcept(c)})`), ...joins.map(quote)].join(' OR ');
}

/** Pages with every concept. */
export function matchAll(concepts: readonly Concept[]): string {
  return concepts.map((c) => `(${matchConcept(c)})`).join(' AND ');
}
