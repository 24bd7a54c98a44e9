import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexText, parseQuery } from './tokenize.ts';

test('identifiers are indexed as parts and as joined runs of parts', () => {
  const t = indexText('Use asyncio.gather() and pg_stat_activity.').split(' ');
  for (const w of ['asyncio', 'gather', 'asynciogather', 'pg', 'stat', 'activity', 'pgstat', 'statactivity', 'pgstatactivity']) assert.ok(t.includes(w), w);
  assert.ok(indexText('object.__rmul__').split(' ').includes('objectrmul'));
});

test('CJK text becomes overlapping pairs', () => {
  assert.equal(indexText('日本語'), '日本 本語');
  assert.equal(indexText('中'), '中');
});

test('queries: concepts, identifiers, stop words and joins of adjacent words', () => {
  const q = parseQuery('log_min_messages configuration parameter');
  assert.deepEqual(q.concepts.map((c) => c.compound ?? c.parts[0]), ['logminmessages', 'configuration', 'parameter']);
  assert.deepEqual(parseQuery('asyncio gather').joins, ['asynciogather']);
  assert.deepEqual(parseQuery('the where').concepts.map((c) => c.stop), [true, false]);
  assert.deepEqual(parseQuery('"*" OR NEAR').concepts.map((c) => c.parts.join(' ')), ['or', 'near']);
  assert.deepEqual(parseQuery('  ').concepts, []);
});
