import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from './extract.ts';

const at = 'https://docs.test/m/page.html';

test('section path from DocBook navigation links: home, up, the page', () => {
  const x = extractHtml(
    `<html><head><title>9.7. Pattern Matching</title></head><body><div class="navheader"><table><tr>
     <td><a accesskey="p" href="a.html" title="9.6. Bits">Prev</a></td><td><a accesskey="u" href="f.html" title="Chapter 9. Functions">Up</a></td>
     <td><a accesskey="h" href="index.html" title="Example 15 Documentation">Home</a></td></tr></table></div>
     <h2>9.7. Pattern Matching</h2><p>Text.</p></body></html>`,
    at,
  );
  assert.deepEqual(x.section, ['Example 15 Documentation', 'Chapter 9. Functions', '9.7. Pattern Matching']);
});

test('section path from head links, one step when up is home', () => {
  const x = extractHtml(
    `<html><head><title>Chapter 6. Updates</title><link rel="home" href="index.html" title="The Handbook">
     <link rel="up" href="index.html" title="The Handbook"></head><body><p>Text.</p></body></html>`,
    at,
  );
  assert.deepEqual(x.section, ['The Handbook', 'Chapter 6. Updates']);
});

test('section path from a Sphinx navigation bar and the title, which names the manual last', () => {
  const bar = `<div class="related" role="navigation"><ul><li class="right"><a href="i.html" accesskey="I">index</a></li>
    <li class="nav-item nav-item-1"><a href="index.html">The Library</a> &#187;</li>
    <li class="nav-item nav-item-2"><a href="text.html" accesskey="U">Text Services</a> &#187;</li>
    <li class="nav-item nav-item-this"><a href=""><code>re</code> — Regular expressions</a></li></ul></div>`;
  const x = extractHtml(
    `<html><head><title>re — Regular expressions &#8212; Lang 3.11 documentation</title></head><body>${bar}<p>Text.</p>${bar}</body></html>`,
    at,
  );
  assert.deepEqual(x.section, ['Lang 3.11 documentation', 'The Library', 'Text Services', 're — Regular expressions']);
});

test('section path from a breadcrumb; none when only the title is known', () => {
  const x = extractHtml(
    `<html><head><title>Kettles | Shop</title></head><body><ol class="breadcrumb"><li><a href="/">Home</a> ›</li><li><a href="/k">Kitchen</a></li></ol><p>Text.</p></body></html>`,
    at,
  );
  assert.deepEqual(x.section, ['Shop', 'Home', 'Kitchen', 'Kettles']);
  assert.deepEqual(extractHtml('<html><head><title>Alone</title></head><body><p>Text.</p></body></html>', at).section, []);
});

test('the site icon as the page declares it, resolved; none when it declares none', () => {
  const icon = (head: string) => extractHtml(`<html><head><title>T</title>${head}</head><body><p>x</p></body></html>`, at).icon;
  assert.equal(icon('<link rel="shortcut icon" type="image/png" href="../_static/py.svg" />'), 'https://docs.test/_static/py.svg');
  assert.equal(icon('<link rel="icon" href="data:image/png;base64,AAAA">'), 'data:image/png;base64,AAAA');
  assert.equal(icon('<link rel="icon" href="javascript:alert(1)">'), null);
  assert.equal(icon(''), null);
});
