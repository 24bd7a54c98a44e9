import { rankFields, type Candidate } from './rank.ts';

/** For the unit tests of ranking: a candidate with every signal at its plainest, `changes` applied. */
export function testCandidate(changes: Partial<Candidate> = {}): Candidate {
  const title = changes.title ?? 'Shell environment';
  const url = changes.url ?? 'https://h.test/x.html';
  return {
    id: 1,
    bm25: 10,
    coversAll: true,
    title,
    headings: '',
    url,
    langShares: { en: 1 },
    markupLang: null,
    urlLang: null,
    inlinks: 0,
    defines: 0,
    definesIndexed: 0,
    nearAnchors: 0,
    linkContext: 0,
    held: 1,
    passage: 0,
    linkShare: 0,
    described: 0,
    onNamedSite: 0,
    authority: 1,
    siteFocus: 0,
    siblings: 0,
    wordsUsed: 0,
    fields: rankFields(title, url, changes.headings ?? ''),
    ...changes,
  };
}
