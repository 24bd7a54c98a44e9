import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostLabels, siteHints } from './site-hints.ts';
import { parseQuery } from './tokenize.ts';

const labels = hostLabels(['docs.python.org', 'www.postgresql.org', 'debian-handbook.info', 'www.debian.org', 'example.com:8080']);

test('a word names the sites one of whose host labels is it or begins with it', () => {
  const hints = siteHints(parseQuery('postgres vacuum').concepts, labels);
  assert.deepEqual([...hints], [[0, new Set(['www.postgresql.org'])]]);
  const debian = siteHints(parseQuery('debian firewall').concepts, labels);
  assert.deepEqual([...(debian.get(0) ?? [])].sort(), ['debian-handbook.info', 'www.debian.org']);
  assert.deepEqual([...siteHints(parseQuery('python list comprehension').concepts, labels).keys()], [0]);
});

test('generic labels, short words, stop words and identifiers name no site', () => {
  assert.equal(siteHints(parseQuery('docs www org info').concepts, labels).size, 0);
  assert.equal(siteHints(parseQuery('pyt post postg').concepts, labels).size, 0);
  assert.equal(siteHints(parseQuery('python.org').concepts, labels).size, 0);
  assert.equal(siteHints(parseQuery('examples').concepts, labels).size, 0);
  assert.deepEqual([...siteHints(parseQuery('example').concepts, labels).keys()], [0]);
});
