import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from './extract.ts';

const page = (body: string) => `<html><head><title>Manual</title></head><body>${body}</body></html>`;
const marked = (body: string) => extractHtml(page(body), 'https://docs.test/m.html').indexed;

test('index anchors mark the definition term or table row they sit in', () => {
  const x = extractHtml(
    page(`<dl><dt><code>shared_buffers</code> (integer) <a id="id-1.2" class="indexterm"></a></dt><dd>Memory.</dd>
      <dt><code>work_mem</code></dt><dd>Sort memory.</dd></dl>
      <table><tr><td><p><a id="id-3" class="indexterm"></a> <code>count</code> ( * ) → bigint</p></td><td>Counts rows.</td></tr>
      <tr><td>sum ( x )</td><td>Adds.</td></tr></table>`),
    'https://docs.test/m.html',
  );
  assert.deepEqual(x.indexed.sort(), ['count', 'count ( * ) → bigint', 'shared_buffers (integer)'].sort());
  assert.ok(x.terms.includes('work_mem') && x.terms.includes('sum ( x )'));
});

test('an anchor right after a heading, or right before one, marks the heading; text between breaks it', () => {
  assert.deepEqual(marked('<h3>9.7.1. LIKE</h3><a id="i1" class="indexterm"></a><p>Pattern matching.</p>'), ['9.7.1. LIKE']);
  assert.deepEqual(marked('<span class="target" id="index-0"></span><h2>Byte arrays</h2><p>Text.</p>'), ['Byte arrays']);
  assert.deepEqual(marked('<h3>Notes</h3><p>Some words first.</p><a id="i1" class="indexterm"></a><p>More.</p>'), []);
});

test('an anchor beside an inline name marks the name', () => {
  assert.deepEqual(marked('<ul><li><a id="i1" class="indexterm"></a><code class="envar">PGUSER</code> is the user name.</li></ul>'), [
    'PGUSER',
  ]);
  assert.deepEqual(marked('<p>Use <code>lo_import</code><a id="i2" class="indexterm"></a>, then more.</p>'), ['lo_import']);
  assert.deepEqual(marked('<p>Use <code>lo_import</code> and then <a id="i2" class="indexterm"></a> more words.</p>'), []);
});

test('an anchor with text, or an ordinary empty anchor, is no index anchor', () => {
  assert.deepEqual(marked('<h3>Title</h3><a id="x" class="indexterm">see here</a><p>Text.</p>'), []);
  assert.deepEqual(marked('<h3>Title</h3><a id="section-2"></a><p>Text.</p>'), []);
});

test('the first words of a block an index anchor opens are kept as what it points at', () => {
  const anchored = (body: string) => extractHtml(page(body), 'https://docs.test/m.html').anchored;
  assert.deepEqual(
    anchored(`<p>Intro.</p><a id="i1" class="indexterm"></a><a id="i2" class="indexterm"></a><pre class="synopsis">
soundex(text) returns text
difference(text, text) returns int
</pre><p>The soundex function converts a string.</p>`),
    ['soundex text returns text difference text text returns int'],
  );
  assert.deepEqual(
    anchored('<a id="i1" class="indexterm"></a><p>When a function is suffixed by <code>WITH ORDINALITY</code>, a column is appended.</p>'),
    ['when a function is suffixed by with ordinality a column is appended'],
  );
  // Text between the anchor and the block: the anchor marks no block.
  assert.deepEqual(anchored('<div><a id="i1" class="indexterm"></a>Some words.<p>A paragraph.</p></div>'), []);
});

test('the words within a few words after an index anchor, whatever the markup, are near it', () => {
  const near = (body: string) => extractHtml(page(body), 'https://docs.test/m.html').nearAnchors.sort();
  assert.deepEqual(
    near(`<p>Before the anchor.</p><p><a id="i1" class="indexterm"></a>An example of an ordered-set aggregate call:</p>
      <pre>SELECT percentile_cont(0.5)</pre><p>which obtains the median value.</p>`),
    [
      'aggregate',
      'call',
      'cont',
      'example',
      'median',
      'obtains',
      'ordered',
      'percentile',
      'select',
      'set',
      'value',
      'which',
      '0',
      '5',
    ].sort(),
  );
  const far = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
  const words = near(`<p><span class="target" id="index-3"></span>${far}</p>`);
  assert.equal(words.length, 32, 'the first 32 words only');
  assert.ok(words.includes('w31') && !words.includes('w32'));
  assert.deepEqual(near('<p>No anchor here at all.</p>'), []);
});
