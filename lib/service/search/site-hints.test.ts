import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siteHints, siteNames } from './site-hints.ts';
import { parseQuery } from './tokenize.ts';

const labels = siteNames(['docs.python.org', 'www.postgresql.org', 'debian-handbook.info', 'www.debian.org', 'example.com:8080']);

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

test('a word names exactly the hosts it names by the definition, looked up rather than compared with every host', () => {
  // The definition, host by host: a label (not generic, not a number, four letters or more) that the
  // word begins and holds at least three quarters of.
  const generic = new Set(['www', 'docs', 'org', 'com', 'net', 'info']);
  const byDefinition = (word: string, hosts: readonly string[]) =>
    hosts.filter((host) =>
      host
        .split(/[.-]/)
        .some((l) => l.length >= 4 && !generic.has(l) && !/^\d+$/.test(l) && l.startsWith(word) && word.length >= 0.75 * l.length),
    );
  const hosts = [
    'docs.python.org',
    'www.postgresql.org',
    'debian-handbook.info',
    'www.debian.org',
    'debian.debianist.net',
    'pythonista.com',
    'w0042.org',
    '2024.example.net',
    ...Array.from({ length: 40 }, (_, i) => `w${String(i * 37).padStart(4, '0')}.org`),
  ];
  const names = siteNames(hosts);
  const words = (
    'python pytho pyth pythonist pythonista postgres postgre postgresql postg debian debia debianis ' +
    'handbook handboo hand example exampl w0042 w004 w0111 w011 2024 docs python.org'
  ).split(' ');
  let named = 0;
  for (const word of words) {
    const concepts = parseQuery(word).concepts;
    const want = concepts.length === 1 && concepts[0]?.parts.length === 1 && !concepts[0].stop ? byDefinition(word, hosts) : [];
    assert.deepEqual([...(siteHints(concepts, names).get(0) ?? [])], want, word);
    named += want.length;
  }
  assert.ok(named >= 12, 'words naming hosts to compare');
});
