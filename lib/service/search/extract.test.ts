import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from './extract.ts';
import { buildDocument } from './document.ts';
import { UnparseablePage } from './unparseable-page.ts';

const html = `<!DOCTYPE html><html lang="pt-BR"><head><title>Kettles &amp; Co</title>
<meta name="description" content="All about kettles."><link rel="canonical" href="/kettles/">
<script>var nav = 'no';</script><style>.x{}</style></head><body>
<nav><a href="/">Home</a><a href="/about">About us</a></nav>
<div class="sphinxsidebar"><a href="/toc">Table of contents</a></div>
<header><a href="/">Logo</a></header>
<main><h1>Kettles</h1><p>A kettle boils <b>water</b>.</p>
<dl><dt id="kettle.boil">kettle.boil(temperature)</dt><dd>Boils.</dd></dl>
<table><tr><td><code>descale</code> ( acid )</td><td>Removes scale.</td></tr></table>
<aside class="sidebar">${'A long sidebar that is real content and not navigation at all. '.repeat(5)}</aside>
<p>See <a href="/tea.html#green">green tea</a>.</p></main>
<footer>Copyright 2026 <a href="/legal">Legal</a></footer></body></html>`;

test('main text without navigation, with headings, definitions, links and metadata', () => {
  const x = extractHtml(html, 'https://shop.test/kettles/index.html');
  assert.equal(x.title, 'Kettles & Co');
  assert.equal(x.description, 'All about kettles.');
  assert.equal(x.canonical, 'https://shop.test/kettles/');
  assert.equal(x.markupLang, 'pt-BR');
  assert.deepEqual(x.headings, ['Kettles']);
  const text = x.blocks.join('\n');
  assert.match(text, /A kettle boils water\./);
  assert.match(text, /A long sidebar that is real content/);
  for (const junk of ['Home', 'About us', 'Table of contents', 'Logo', 'Copyright', 'var nav']) assert.ok(!text.includes(junk), junk);
  assert.ok(x.terms.includes('kettle.boil'));
  assert.ok(x.terms.includes('kettle.boil(temperature)'));
  assert.ok(x.terms.includes('descale ( acid )'));
  assert.deepEqual(x.links, [{ url: 'https://shop.test/tea.html', text: 'green tea', context: 'see green tea' }]);
});

test('documents: canonical on the same site only, never across languages; language from the text', () => {
  const page = (canonical: string, body: string) =>
    `<html><head><title>T</title><link rel="canonical" href="${canonical}"></head><body><p>${body}</p></body></html>`;
  const german = 'Der Paketmanager installiert die Software und löst dabei alle Abhängigkeiten auf, bevor das System neu gestartet wird.';
  assert.equal(
    buildDocument({ url: 'https://docs.python.org/3.11/a.html', html: page('https://docs.python.org/3/a.html', 'x') }).url,
    'https://docs.python.org/3/a.html',
  );
  assert.equal(
    buildDocument({ url: 'https://a.test/x.html', html: page('https://elsewhere.test/x.html', 'x') }).url,
    'https://a.test/x.html',
  );
  const de = buildDocument({ url: 'https://h.test/browse/de-DE/stable/x.html', html: page('https://h.test/browse/stable/x.html', german) });
  assert.equal(de.url, 'https://h.test/browse/de-DE/stable/x.html');
  assert.equal(de.lang, 'de');
  assert.equal(de.urlLang, 'de-DE');
  assert.throws(() => buildDocument({ url: 'https://a.test/bin', html: '\u0000'.repeat(100) }), UnparseablePage);
  assert.throws(() => buildDocument({ url: 'https://a.test/empty', html: '<html><body></body></html>' }), UnparseablePage);
});

test('a member defined under its class is known by its qualified name; dfn and firstterm define terms', () => {
  const x = extractHtml(
    `<html><body><dl><dt id="collections.deque.count">count(x)</dt><dd>Counts.</dd>
<dt id="math.sqrt">math.sqrt(x)</dt><dd>Root.</dd></dl>
<p>A <dfn>kettle</dfn> boils; a <em class="firstterm">hot standby</em> answers.</p></body></html>`,
    'https://a.test/',
  );
  assert.ok(x.terms.includes('collections.deque.count'));
  assert.ok(!x.terms.includes('count(x)'), 'the bare member name is not what the page defines');
  assert.ok(x.terms.includes('math.sqrt(x)'));
  assert.ok(x.terms.includes('kettle'));
  assert.ok(x.terms.includes('hot standby'));
});

test('each link carries the words of the block of text it stands in', () => {
  const x = extractHtml(
    `<html><body><main><p>The median of a sample is computed by the <a href="agg.html">aggregate functions</a>.</p>
    <ul><li>See <a href="other.html">Section 9.11</a></li></ul></main></body></html>`,
    'https://docs.test/m.html',
  );
  const context = (url: string) => x.links.find((l) => l.url.endsWith(url))?.context;
  assert.equal(context('/agg.html'), 'median sample computed aggregate functions');
  assert.equal(context('/other.html'), 'see section 9 11');
});

test('each definition term with the first words of its description, without its members or code', () => {
  const x = extractHtml(
    `<html><body><main><dl class="py class"><dt id="Kettle">class Kettle(size)</dt><dd><p>A kettle that <em>boils</em> water.</p>
    <pre>k = Kettle(2)</pre><dl><dt id="Kettle.pour">pour()</dt><dd><p>Pours the water out.</p></dd></dl></dd></dl>
    <dl><dt>descale</dt><dd>Removes scale.</dd><dt>orphan</dt></dl></main></body></html>`,
    'https://shop.test/k.html',
  );
  assert.deepEqual(x.described, [
    { term: 'Kettle.pour', words: 'pours the water out' },
    { term: 'Kettle', words: 'a kettle that boils water' },
    { term: 'descale', words: 'removes scale' },
  ]);
});
