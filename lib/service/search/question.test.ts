import assert from 'node:assert/strict';
import { test } from 'node:test';
import { understand } from './question.ts';

test("quoted strings and back-ticked names are the asker's literals, taken out of what is searched", () => {
  const u = understand('Convert hex string "deadbeef" to integer');
  assert.equal(u.text, 'Convert hex string to integer');
  assert.deepEqual(u.literals, ['deadbeef']);
  assert.deepEqual(understand("remove the element in list `a` at index 'i'").literals, ['a', 'i']);
  assert.deepEqual(understand('sort “fancy” quotes and ‘these’ too').literals, ['fancy', 'these']);
});

test('an apostrophe inside a word is no quote', () => {
  const u = understand("Python's list and don't repeat");
  assert.deepEqual(u.literals, []);
  assert.equal(u.text, "Python's list and don't repeat");
});

test('a query that is nothing but a literal is searched as typed', () => {
  const u = understand('"log_min_messages"');
  assert.equal(u.text, '"log_min_messages"');
  assert.deepEqual(u.literals, []);
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
