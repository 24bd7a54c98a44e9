import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationFailed } from '../errors.ts';
import { parseSearchBody } from './search.ts';

const issues = (text: string) => {
  try {
    parseSearchBody(text);
  } catch (err) {
    assert.ok(err instanceof ValidationFailed);
    return err.issues.map((i) => i.field);
  }
  return [];
};

test('valid bodies, defaults and unknown fields', () => {
  assert.deepEqual(parseSearchBody('{"query":"x"}'), { query: 'x', language: 'en' });
  assert.deepEqual(parseSearchBody('{"query":"x","language":"PT-br","extra":1}'), { query: 'x', language: 'pt' });
  assert.equal(parseSearchBody(JSON.stringify({ query: '𝄞'.repeat(348) })).query.length, 696);
});

test('invalid bodies name their fields', () => {
  assert.deepEqual(issues('{"query":""}'), ['query']);
  assert.deepEqual(issues(JSON.stringify({ query: 'a'.repeat(349) })), ['query']);
  assert.deepEqual(issues('{"query":"\\ud800"}'), ['query']);
  assert.deepEqual(issues('{"language":"fra"}'), ['query', 'language']);
  assert.deepEqual(issues('[]'), ['body']);
  assert.deepEqual(issues('{'), ['body']);
});
