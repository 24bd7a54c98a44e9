import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { IndexReader } from './query.ts';
import { SqliteIndexWriter } from './writer.ts';

/** The ranking of questions (decision 0082) on small real indexes: each case is built so that the
 * ranking without the feature it tests puts the other page first. */
const dir = mkdtempSync(join(tmpdir(), 'periscope-questions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const page = (title: string, body: string, lang = 'en') =>
  `<!doctype html><html lang="${lang}"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

function build(name: string, pages: [url: string, html: string][]): IndexReader {
  const file = join(dir, `${name}.db`);
  const writer = new SqliteIndexWriter(file);
  for (const [url, html] of pages) writer.upsert(buildDocument({ url, html }));
  writer.finish();
  writer.close();
  const reader = new IndexReader(file);
  after(() => reader.close());
  return reader;
}

const search = (reader: IndexReader, query: string, language = 'en') => reader.search({ query, language, limit: 10, exact: true }).results;

describe('a question', () => {
  it('prefers the page the other pages link to (authority), which a name does not', () => {
    // The page nobody links to says it a little better, and comes first in the index.
    const text = '<p>Sort the items of a list by a key, in place or as a new list.</p>';
    const better = '<p>Sort the items of a list by a key, in place or as a new list. Sort by key.</p>';
    const hubs: [string, string][] = ['a', 'b', 'c', 'd'].map((n) => [
      `https://docs.test/hub-${n}.html`,
      page(`Hub ${n}`, '<p>More about <a href="linked.html">this</a>.</p>'),
    ]);
    const reader = build('authority', [
      ['https://docs.test/alone.html', page('Lists', better)],
      ['https://docs.test/linked.html', page('Lists', text)],
      ...hubs,
    ]);
    const db = new DatabaseSync(join(dir, 'authority.db'), { readOnly: true });
    const authority = (url: string) =>
      (db.prepare('SELECT authority FROM signals WHERE url = ?').get(url) as { authority: number }).authority;
    assert.ok(authority('https://docs.test/linked.html') > 1 && authority('https://docs.test/alone.html') < 1);
    db.close();
    assert.equal(search(reader, 'how do I sort the items of a list by a key')[0]?.url, 'https://docs.test/linked.html');
    // The same words typed as a name: the text decides.
    assert.equal(search(reader, 'sort list key')[0]?.url, 'https://docs.test/alone.html');
  });

  it('scores a long page by its best passage, and shows that passage however far down it is', () => {
    const filler = Array.from(
      { length: 300 },
      (_, i) => `<p>Paragraph ${i} says something about trimming hedges and other garden work.</p>`,
    ).join('');
    const reader = build('passages', [
      [
        'https://docs.test/scattered.html',
        page('Text', '<p>Whitespace matters.</p><p>A string is text.</p><p>Remove it later.</p><p>Leading and trailing spaces.</p>'),
      ],
      [
        'https://docs.test/long.html',
        page('Strings', `${filler}<p>To remove leading and trailing whitespace from a string, strip it.</p>`),
      ],
    ]);
    const results = search(reader, 'remove leading and trailing whitespace from a string');
    const long = results.find((r) => r.url === 'https://docs.test/long.html');
    assert.match(long?.snippet ?? '', /leading and trailing whitespace/, 'the snippet is the passage that answers, 300 paragraphs down');
    assert.equal(results[0]?.url, 'https://docs.test/long.html');
  });

  it('finds the definition whose description and the links naming it say what the question asks', () => {
    // The reference page holds half of the question's words, in every one of its definitions (its
    // answer says `final` and `removed`); the how-to holds them all, in its title and its text, and
    // names the answer in a link, as the FAQ does.
    const defs = Array.from(
      { length: 40 },
      (_, i) => `<dt id="str.m${i}">str.m${i}()</dt><dd><p>Return the string with item ${i} at the end of the line changed.</p></dd>`,
    ).join('');
    const reader = build('described', [
      [
        'https://docs.test/types.html',
        page(
          'Built-in types',
          `<dl>${defs}<dt id="str.rstrip">str.rstrip()</dt><dd><p>Return a copy of the string with the final characters removed.</p></dd></dl>`,
        ),
      ],
      [
        'https://docs.test/howto.html',
        page(
          'Trim the spaces at the end of a line',
          '<p>To trim the spaces at the end of a line, a program may call <a href="types.html#str.rstrip">str.rstrip()</a>.</p>',
        ),
      ],
      ['https://docs.test/faq.html', page('FAQ', '<p>Spaces at the end: see <a href="types.html#str.rstrip">str.rstrip()</a>.</p>')],
    ]);
    assert.equal(search(reader, 'how do I trim the spaces at the end of a line')[0]?.url, 'https://docs.test/types.html');
  });

  it('answers with a page holding few of its words when one of its definitions is for what it asks', () => {
    const reader = build('described-few', [
      [
        'https://docs.test/types.html',
        page(
          'Built-in types',
          '<dl><dt id="str.rstrip">str.rstrip()</dt><dd><p>Return a copy with the final characters removed.</p></dd></dl>',
        ),
      ],
      [
        'https://docs.test/faq.html',
        page('FAQ', '<p>Trim the spaces at the end of a line: see <a href="types.html#str.rstrip">str.rstrip()</a>.</p>'),
      ],
    ]);
    const results = search(reader, 'how do I trim the spaces at the end of a line').map((r) => r.url);
    assert.ok(results.includes('https://docs.test/types.html'), 'not one of the words is on the page');
  });
  it("is about the manual its hubs are on, when the first stage's best pages are on sites of their own", () => {
    // Seventy pages on sites of their own hold the question's words, more densely than the manual
    // does, so the first stage's sixty best say nothing of which manual it is about. The manual's
    // reference defines what answers it (its description learns the question's words from the
    // links naming it), and every other page of the manual links to the reference and the guide:
    // they are its hubs (decision 0139), and the manual is the site they are on.
    const notes = Array.from({ length: 70 }, (_, i): [string, string] => [
      `https://notes${i}.test/trim.html`,
      page(`Notes ${i}`, `<p>trim trim spaces spaces ${i}</p><p>end end line line</p>`),
    ]);
    const topics = Array.from({ length: 20 }, (_, i): [string, string] => [
      `https://docs.test/topic-${i}.html`,
      page(`Topic ${i}`, `<p>Topic ${i}: see <a href="types.html">the types</a> and <a href="guide.html">the guide</a>.</p>`),
    ]);
    const reader = build('described-hubs', [
      ...notes,
      ...topics,
      [
        'https://docs.test/types.html',
        page(
          'Built-in types',
          '<dl><dt id="str.rstrip">str.rstrip()</dt><dd><p>Return a copy with the final characters removed.</p></dd></dl>',
        ),
      ],
      [
        'https://docs.test/guide.html',
        page('Guide', '<p>Trim the spaces at the end of a line: see <a href="types.html#str.rstrip">str.rstrip()</a>.</p>'),
      ],
    ]);
    assert.equal(search(reader, 'how do I trim the spaces at the end of a line')[0]?.url, 'https://docs.test/types.html');
  });

  it('finds the page of the manual its hubs are on that answers it, below many pages of sites of their own', () => {
    // Seventy pages on sites of their own hold the question's words more densely than the manual's
    // page on argument parsing, which is long and neither a hub nor a definition: the first
    // stage's sixty best are those seventy. The manual's other pages all link to its three hubs,
    // and they all use one of the question's words: the question's hubs say which site it is
    // about, and that site's ten best pages of its twenty-four holding some of the question join
    // the candidates (decision 0166).
    const filler = Array.from({ length: 8 }, (_, i) => `<p>Paragraph ${i} is about parsers, options and their help.</p>`).join('');
    const notes = Array.from({ length: 70 }, (_, i): [string, string] => [
      `https://notes${i}.test/args.html`,
      page(`Notes ${i}`, `<p>positional arguments ${i}, positional arguments</p><p>specify several, specify several</p>${filler}`),
    ]);
    const hubs = ['functions', 'classes', 'errors'];
    const topics = Array.from({ length: 20 }, (_, i): [string, string] => [
      `https://docs.test/topic-${i}.html`,
      page(`Topic ${i}`, `<p>Topic ${i} and its arguments: see ${hubs.map((h) => `<a href="${h}.html">the ${h}</a>`).join(', ')}.</p>`),
    ]);
    const reader = build('question-sites', [
      ...notes,
      ...topics,
      ...hubs.map((h): [string, string] => [`https://docs.test/${h}.html`, page(`The ${h}`, `<p>The ${h} and their arguments.</p>`)]),
      [
        'https://docs.test/argparse.html',
        page('Parser for command-line options', `${filler}<p>To specify several positional arguments, give each its name.</p>`),
      ],
    ]);
    assert.equal(search(reader, 'how do I specify several positional arguments')[0]?.url, 'https://docs.test/argparse.html');
  });

  it("is answered by the passage about what it asks, not by a page holding the asker's own value", () => {
    // `deploy.sh` is on one page only, and each other word of the question on eight more: the
    // value's idf is two and a half times any other's. The scripts page holds it with two of them;
    // the reference holds the four others in one passage, and no value of the asker's (0165).
    const words = ['call', 'shell', 'script', 'subprocess'];
    const common = Array.from({ length: 32 }, (_, i): [string, string] => [
      `https://docs.test/topic-${i}.html`,
      page(`Topic ${i}`, `<p>A ${words[i % 4]} of topic ${i}.</p>`),
    ]);
    const reader = build('own-values', [
      ...common,
      [
        'https://docs.test/subprocess.html',
        page(
          'Subprocess management',
          '<p>Call a shell script with subprocess.run(), which waits for it to end.</p><p>Timeouts and pipes.</p>',
        ),
      ],
      ['https://docs.test/scripts.html', page('Scripts', '<p>Our deploy.sh shell script.</p><p>Release notes.</p>')],
    ]);
    const results = search(reader, 'call a shell script `deploy.sh` using subprocess').map((r) => r.url);
    assert.ok(results.includes('https://docs.test/scripts.html'), 'the scripts page is a result');
    assert.equal(results[0], 'https://docs.test/subprocess.html');
  });
});

describe('any query', () => {
  it('reads a word that names a site as where to look, not what to find', () => {
    // The other site's page comes first in the index, so it wins a tie.
    const reader = build('sites', [
      ['https://www.other.test/descale.html', page('Descaling', '<p>Brewing tips: descaling a kettle removes lime.</p>')],
      [
        'https://www.brewing.test/descale.html',
        page('Descaling', '<p>Descaling a kettle removes lime and scale from the heating element inside it.</p>'),
      ],
    ]);
    const results = search(reader, 'brewing descaling');
    assert.equal(results[0]?.url, 'https://www.brewing.test/descale.html');
    assert.equal(results.length, 2, 'the word naming the site is not required');
  });

  it('finds the one word two typed words make (back up -> backup) in titles too', () => {
    const reader = build('joins', [
      ['https://docs.test/stairs.html', page('Stairs', '<p>Go back up the stairs of the system tower.</p>')],
      ['https://docs.test/backup.html', page('Backup', '<p>Keep a copy of the system on another disk.</p>')],
    ]);
    assert.equal(search(reader, 'back up the system')[0]?.url, 'https://docs.test/backup.html');
  });

  it('shows one of the copies of a page under several languages’ addresses, in the query’s language', () => {
    const text = '<p>Regular upgrades are recommended, because they include the latest security updates.</p>';
    const reader = build('copies', [
      ['https://docs.test/da-DK/upgrades.html', page('Upgrades', text)],
      ['https://docs.test/el-GR/upgrades.html', page('Upgrades', text)],
      ['https://docs.test/en-US/upgrades.html', page('Upgrades', text)],
      ['https://docs.test/en-US/other.html', page('Other', '<p>Security updates come first.</p>')],
    ]);
    const english = search(reader, 'security upgrades').map((r) => r.url);
    assert.deepEqual(english, ['https://docs.test/en-US/upgrades.html', 'https://docs.test/en-US/other.html']);
    assert.equal(search(reader, 'security upgrades', 'da')[0]?.url, 'https://docs.test/da-DK/upgrades.html');
  });
});
