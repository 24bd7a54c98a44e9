import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Descriptions, namedBy, type DescribedRow } from './descriptions.ts';

const row = (page: number, term: string, words: string, links = 0): DescribedRow => ({ page, term, terms: words.split(' '), links });
const terms = (question: string) => question.split(' ').map((w) => [w]);

describe('what a definition is for', () => {
  it('finds the definition whose description holds the question, by how rare its words are', () => {
    const d = new Descriptions([
      row(1, 'str.rstrip', 'return copy string trailing characters remove whitespace'),
      row(1, 'str.upper', 'return copy string characters converted uppercase'),
      row(2, 'textwrap.dedent', 'remove common leading whitespace lines text'),
      row(3, 'list.append', 'add item end list'),
    ]);
    const found = d.match(terms('remove trailing whitespace'), 10);
    assert.deepEqual(
      found.map((m) => [m.page, m.term]),
      [
        [1, 'str.rstrip'],
        [2, 'textwrap.dedent'],
      ],
    );
    assert.ok((found[0] as { share: number }).share > (found[1] as { share: number }).share);
    assert.ok(found.every((m) => m.share > 0 && m.share <= 1));
  });

  it('leaves out a definition that holds one word of a question of several, and keeps each page once', () => {
    const d = new Descriptions([row(1, 'a', 'list items'), row(1, 'b', 'list items sorted'), row(2, 'c', 'list')]);
    assert.deepEqual(
      d.match(terms('sorted list items'), 10).map((m) => m.term),
      ['b'],
    );
    assert.deepEqual(
      d.match(terms('list'), 10).map((m) => m.page),
      [1, 2],
    );
    assert.deepEqual(d.match(terms('list'), 1).length, 1);
    assert.deepEqual(new Descriptions([]).match(terms('list'), 10), []);
  });

  it('weighs a definition by how often the corpus names it', () => {
    const d = new Descriptions([row(1, 'obscure', 'number items object', 0), row(2, 'len', 'number items object', 50)]);
    const [first, second] = d.match(terms('number items'), 10);
    assert.equal(first?.term, 'len');
    assert.ok((first?.share ?? 0) > (second?.share ?? 1));
  });

  it("learns a definition's words from the links naming it, by its full name or its tail", () => {
    const described = [
      { page: 1, term: 'str.strip' },
      { page: 1, term: 'len' },
      { page: 2, term: 'len' },
    ];
    const named = namedBy(described, [
      { page: 1, text: 'str.strip()', context: 'trim whitespace' },
      { page: 1, text: 'strip()', context: 'trim' },
      { page: 1, text: 'len()', context: 'size list' },
      { page: 1, text: 'the built-in functions', context: 'overview' },
      { page: 3, text: 'len()', context: 'elsewhere' },
    ]);
    assert.deepEqual(named, [
      { links: 2, words: ['trim', 'whitespace', 'trim'] },
      { links: 1, words: ['size', 'list'] },
      { links: 0, words: [] },
    ]);
  });
});
