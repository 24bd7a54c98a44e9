import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  areNeighbours,
  bestCandidate,
  editsOf,
  editWord,
  inCaseOf,
  likelihood,
  rewriteQuery,
  typistEdits,
  type Candidate,
} from './typos.ts';

const edit = (word: string, text: string) => editsOf(word).find((e) => e.text === text);

test('every kind of one mistake is undone by one edit, named after the mistake', () => {
  assert.equal(edit('gahter', 'gather')?.kind, 'swapped');
  assert.equal(edit('gater', 'gather')?.kind, 'dropped');
  assert.equal(edit('gatther', 'gather')?.kind, 'doubled');
  assert.equal(edit('gaxther', 'gather')?.kind, 'extra');
  assert.equal(edit('gatjer', 'gather')?.kind, 'neighbour', 'j is beside h');
  assert.equal(edit('gatqer', 'gather')?.kind, 'replaced');
  assert.equal(edit('gather', 'gather'), undefined, 'the word itself is no edit');
  assert.equal(new Set(editsOf('gather').map((e) => e.text)).size, editsOf('gather').length, 'each edit once');
  // Letters of other scripts are inserted from the word itself.
  assert.ok(editsOf('дебан').some((e) => e.text === 'дебаан'));
  assert.ok(typistEdits('gatqer').every((e) => e.kind !== 'replaced'));
});

test('the keyboard: neighbours in a row and across the staggered rows, not further', () => {
  assert.ok(areNeighbours('a', 's') && areNeighbours('s', 'a') && areNeighbours('g', 'h') && areNeighbours('p', 'o'));
  assert.ok(areNeighbours('e', 'd') && areNeighbours('n', 'j'));
  assert.ok(!areNeighbours('a', 'p') && !areNeighbours('q', 'm'));
});

test('a typist mistake is likelier than an arbitrary replacement, and the first letter is rarely wrong', () => {
  assert.ok(likelihood({ kind: 'swapped', at: 2 }) > likelihood({ kind: 'replaced', at: 2 }));
  assert.ok(likelihood({ kind: 'neighbour', at: 0 }) < likelihood({ kind: 'neighbour', at: 1 }));
});

const cand = (term: string, kind: Candidate['edit']['kind'], pages: number, together: number | null, at = 2): Candidate => ({
  term,
  edit: { text: term, kind, at, letter: '' },
  pages,
  together,
});

test('the correction: frequent words, in the context of the query, by the likelihood of the mistake', () => {
  // Alone, the more frequent word wins unless the mistake behind it is much less likely.
  assert.equal(bestCandidate([cand('ltrim', 'neighbour', 2, null), cand('strom', 'replaced', 6, null, 0)])?.term, 'ltrim');
  assert.equal(bestCandidate([cand('form', 'swapped', 50, null), cand('from', 'swapped', 5000, null)])?.term, 'from');
  // With other words, what occurs with them wins.
  assert.equal(bestCandidate([cand('form', 'swapped', 50, 40), cand('from', 'swapped', 5000, 3)])?.term, 'form');
  // A word that never occurs with the rest of the query is not corrected.
  assert.equal(bestCandidate([cand('form', 'swapped', 50, 0)]), null);
  assert.equal(bestCandidate([]), null);
});

test('the same edit on the word as typed, when the term is its start up to the edit', () => {
  const e = edit('conect', 'connect');
  assert.ok(e);
  assert.equal(editWord('conection', 'conect', e), 'connection');
  const late = edit('configura', 'configur');
  assert.ok(late);
  assert.equal(editWord('configuraation', 'configura', late), 'configuration');
  assert.equal(
    editWord('happy', 'happi', { text: 'happo', kind: 'neighbour', at: 4, letter: 'o' }),
    null,
    'the stemmer changed the edited letter',
  );
});

test('a correction keeps the case it replaces, and the rest of the query as typed', () => {
  assert.equal(inCaseOf('ResourceLaoder', 'resourceloader'), 'ResourceLoader');
  assert.equal(inCaseOf('ResourceLoder', 'resourceloader'), 'ResourceLoader');
  assert.equal(inCaseOf('CNVERSION', 'conversion'), 'CONVERSION');
  assert.equal(inCaseOf('Snchronous', 'synchronous'), 'Synchronous');
  assert.equal(inCaseOf('PQQencryptPasswordConn', 'pqencryptpasswordconn'), 'PQencryptPasswordConn');
  assert.equal(inCaseOf('PGSSLdNI', 'pgsslsni'), 'PGSSLsNI', 'a letter typed in lower case stays so');
  assert.equal(
    rewriteQuery('importlib.abc.ResourceLaoder.get_data  and more', new Map([['resourcelaoder', 'resourceloader']])),
    'importlib.abc.ResourceLoader.get_data  and more',
  );
  assert.equal(rewriteQuery('ALTER CNVERSION', new Map([['cnversion', 'conversion']])), 'ALTER CONVERSION');
  assert.equal(
    rewriteQuery('İzmir Conection', new Map([['conection', 'connection']])),
    'i̇zmir connection',
    'in lower case when lower-casing moves the words',
  );
});
