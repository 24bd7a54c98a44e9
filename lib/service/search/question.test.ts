import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownValues, questionHeads, questionWorth, searchedWords, understand } from './question.ts';
import { parseQuery } from './tokenize.ts';

test("quoted strings and back-ticked names are the asker's literals", () => {
  assert.deepEqual(understand('Convert hex string "deadbeef" to integer').literals, ['deadbeef']);
  assert.deepEqual(understand("remove the element in list `a` at index 'i'").literals, ['a', 'i']);
  assert.deepEqual(understand('sort “fancy” quotes and ‘these’ too').literals, ['fancy', 'these']);
});

test('an apostrophe inside a word is no quote', () => {
  assert.deepEqual(understand("Python's list and don't repeat").literals, []);
});

test('a literal makes a short query a question; a query that is nothing but one is none', () => {
  assert.equal(understand('sort list lst').question, 0);
  assert.ok(understand('sort list `lst`').question >= 0.5);
  assert.deepEqual(understand('"log_min_messages"'), { literals: [], question: 0 });
  // Its literals' words count in its length.
  assert.equal(understand('sort `a` `b` `c` `d` `e`').question, 1);
});

test('names and terms read as such, sentences and questions as questions', () => {
  assert.equal(understand('asyncio gather').question, 0);
  assert.equal(understand('log_min_messages configuration parameter').question, 0);
  assert.equal(understand('how to vacuum').question, 1);
  assert.equal(understand('create a list of integers between two values').question, 1);
  assert.ok(understand('sort list `lst`').question >= 0.5);
  const four = understand('back up the system').question;
  assert.ok(four > 0 && four < 1, String(four));
});

test("a question's weak words are searched as stop words are; a name's are not", () => {
  const stops = (q: string) =>
    searchedWords(q, understand(q), 'en')
      .concepts.filter((c) => c.stop)
      .map((c) => c.parts.join(' '));
  assert.deepEqual(stops('how do I get the size of a list'), ['how', 'do', 'i', 'get', 'the', 'of', 'a']);
  assert.deepEqual(stops('get size'), []);
});

test("a question's words are looked up as names, and their starts as the names they may spell out", () => {
  const heads = questionHeads(parseQuery('convert integer').concepts, [{ head: 'convert integer', weight: 1 }], 1);
  assert.deepEqual(
    heads.map((h) => [h.head, h.weight]),
    [
      ['convert', 0.2],
      ['integer', 0.2],
      ['con', 0.4],
      ['conv', 0.4],
      ['conve', 0.4],
      ['int', 0.4],
      ['inte', 0.4],
      ['integ', 0.4],
    ],
  );
  assert.equal(
    questionHeads(parseQuery('int').concepts, [{ head: 'int', weight: 1 }], 0.5).length,
    0,
    'a head the query has is not asked twice',
  );
});

test("the asker's own values are the words that stand only in quotes or back-ticks", () => {
  const values = (q: string) => {
    const understood = understand(q);
    const concepts = searchedWords(q, understood, 'en').concepts.filter((c) => !c.stop);
    return concepts.filter((_, i) => ownValues(q, understood, concepts, 'en')[i]).map((c) => c.parts.join(' '));
  };
  assert.deepEqual(values('write line "Hello" to file `somefile.txt`'), ['hello', 'somefile txt']);
  // A word also typed outside them is what the question is about.
  assert.deepEqual(values('split string `s` into a list of words, keeping the `list` order'), ['s']);
  assert.deepEqual(values("Python's list and don't repeat"), []);
  // A query that is nothing but a literal has no values: it is a name.
  assert.deepEqual(values('"log_min_messages"'), []);
});

test("a value of the asker's own is worth at most a quarter of the question's rarest other word", () => {
  const worth = new Map([
    [0, 1.2],
    [1, 2.6],
    [2, 12.3],
    [3, 0.4],
  ]);
  assert.deepEqual(
    [...questionWorth(worth, [false, false, true, true])],
    [
      [0, 1.2],
      [1, 2.6],
      [2, 0.65],
      [3, 0.4],
    ],
  );
  // Without values, or with nothing else worth anything, the worth is the index's.
  assert.deepEqual(questionWorth(worth, []), worth);
  assert.deepEqual(questionWorth(new Map([[0, 5]]), [true]), new Map([[0, 5]]));
});
