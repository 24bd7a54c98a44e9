import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeUrl, sameSite, urlKey, urlLanguage, urlWords } from './url.ts';

test('normalisation: scheme and host case, default port, fragment, tracking parameters', () => {
  assert.equal(normalizeUrl('HTTPS://DOCS.Python.ORG:443/3/library/os.html#os.open'), 'https://docs.python.org/3/library/os.html');
  assert.equal(normalizeUrl('http://example.com:80/a?utm_source=x&b=2&a=1&fbclid=z'), 'http://example.com/a?a=1&b=2');
  assert.equal(normalizeUrl('https://example.com/a?utm_medium=email'), 'https://example.com/a');
  assert.equal(normalizeUrl('../b.html', 'https://example.com/x/y/a.html'), 'https://example.com/x/b.html');
  assert.equal(normalizeUrl('mailto:a@b.c'), null);
  assert.equal(normalizeUrl('not a url'), null);
});

test('identity: http and https, and a directory index, are one page', () => {
  const k = (u: string) => urlKey(normalizeUrl(u) as string);
  assert.equal(k('http://example.com/doc/'), k('https://EXAMPLE.com:443/doc/index.html#top'));
  assert.notEqual(k('https://example.com/doc/a.html'), k('https://example.com/doc/b.html'));
});

test('sites, address words and address languages', () => {
  assert.ok(sameSite('https://www.debian.org/a', 'https://debian.org/b'));
  assert.ok(!sameSite('https://debian.org/a', 'https://python.org/b'));
  assert.ok(!sameSite('https://a.co.uk/', 'https://b.co.uk/'));
  assert.equal(urlWords('https://www.postgresql.org/docs/15/catalog-pg-namespace.html'), 'postgresql.org docs 15 catalog-pg-namespace');
  assert.equal(urlLanguage('https://debian-handbook.info/browse/pt-BR/stable/apt.html'), 'pt-BR');
  assert.equal(urlLanguage('https://www.debian.org/doc/manuals/debian-reference/ch01.de.html'), 'de');
  assert.equal(urlLanguage('https://www.debian.org/doc/manuals/debian-reference/ch01.zh-cn.html'), 'zh-CN');
  assert.equal(urlLanguage('https://docs.python.org/3/library/os.html'), null);
});
