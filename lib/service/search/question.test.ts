import assert from 'node:assert/strict';
import { test } from 'node:test';
import { understand } from './question.ts';

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
