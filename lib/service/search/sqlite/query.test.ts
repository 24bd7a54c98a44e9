import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import type { FinishStep } from '../backend.ts';
import { buildDocument } from '../document.ts';
import { WEIGHTS } from '../rank.ts';
import { parseQuery } from '../tokenize.ts';
import { signatureOf } from '../word-signature.ts';
import { HUB_AUTHORITY, HubPages } from './hub-pages.ts';
import { LanguagePages } from './language-pages.ts';
import { PostingsStage } from './postings.ts';
import { IndexReader, MIN_MATCHED } from './query.ts';
import { DEF_NEAR, NEAR_SIGNATURE_BITS, NEAR_SIGNATURES_META } from './schema.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-query-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

/** Finishes the index `writer` builds at `file`, and what a query typed as it is finds there: the
 * results' addresses past `https://docs.test/` (the reader closes after the suite). */
function searchOf(writer: SqliteIndexWriter, file: string): (query: string) => string[] {
  writer.finish();
  writer.close();
  const reader = new IndexReader(file);
  after(() => reader.close());
  return (query) => reader.search({ query, language: 'en', limit: 10, exact: true }).results.map((r) => r.url.slice(18));
}

/** A long page's text: `words` over and over, `length` of them. */
const longText = (words: readonly string[], length = 300) => Array.from({ length }, (_, i) => words[i % words.length]).join(' ');
/** English words no query of these suites holds. */
const STORY = ['the', 'journey', 'of', 'animals', 'is', 'a', 'long', 'and', 'fine', 'story'];

/** Checks that the first stage alone leaves the page at `url` out of its 60 best for `query` on the
 * index at `file`, so that only another way makes it a candidate. */
function leftOutOfFirstStage(file: string, url: string, query: string): void {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const stage = new PostingsStage(db);
    assert.ok(stage.refresh());
    const id = (db.prepare('SELECT id FROM pages WHERE url = ?').get(url) as { id: number }).id;
    const { concepts, joins } = parseQuery(query);
    const best = stage.rank(concepts, joins, 60).map((r) => r.id);
    assert.equal(best.length, 60);
    assert.ok(!best.includes(id), 'the first stage alone leaves it out');
  } finally {
    db.close();
  }
}

describe('results hold at least half of the query', () => {
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  const pages: [string, string][] = [
    ['kettle', 'A kettle boils water for tea.'],
    ['router', 'A router forwards packets between networks.'],
    ['both', 'The kettle and the router share a shelf with the teapot.'],
  ];
  for (const [name, body] of pages) writer.upsert(buildDocument({ url: `https://docs.test/${name}.html`, html: html(name, body) }));
  const urls = searchOf(writer, file);

  it('at least half', () => assert.equal(MIN_MATCHED, 0.5));

  it('a page holding one word of three is no answer; nonsense answers nothing', () => {
    assert.deepEqual(urls('qwzxplkjh kettle zzyzx'), []);
    assert.deepEqual(urls('qwzxplkjh zzyzx'), []);
    assert.deepEqual(urls('kettle router teapot'), ['both.html'], 'the pages holding one of the three words are left out');
  });

  it('half of the words is a partial match worth showing, stop words aside', () => {
    assert.deepEqual(urls('kettle zzyzx').sort(), ['both.html', 'kettle.html']);
    assert.equal(urls('the kettle of a zzyzx').length, 2, 'stop words are not counted');
    assert.equal(urls('kettle router').length, 3);
  });
});

describe('the words an index anchor stands before', () => {
  const file = join(dir, 'near.db');
  const writer = new SqliteIndexWriter(file);
  const text = 'An example of an ordered-set aggregate call obtains the median value of a column.';
  const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(' ');
  const page = (body: string, title = 'Aggregates') =>
    `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  // The same words on both pages; only where the manual's index anchors stand differs. The page
  // without them comes first in the index, so it wins a tie.
  writer.upsert(
    buildDocument({ url: 'https://docs.test/plain.html', html: page(`<p><a id="i1" class="indexterm"></a>${filler}</p><p>${text}</p>`) }),
  );
  writer.upsert(
    buildDocument({ url: 'https://docs.test/indexed.html', html: page(`<p>${filler}</p><p><a id="i1" class="indexterm"></a>${text}</p>`) }),
  );
  writer.upsert(
    buildDocument({
      url: 'https://docs.test/teapot-mentioned.html',
      html: page('<p><a id="i1" class="indexterm"></a>A teapot, a teapot, the teapot again: teapot.</p>', 'Kitchen'),
    }),
  );
  writer.upsert(
    buildDocument({
      url: 'https://docs.test/teapot-defined.html',
      html: page('<p><a id="i1" class="indexterm"></a>See below.</p><dl><dt>teapot</dt><dd>A pot for tea.</dd></dl>', 'Kitchen'),
    }),
  );
  const urls = searchOf(writer, file);
  /** A copy of the index, to make into one from before a change. */
  const copyOf = (name: string) => {
    const copy = join(dir, name);
    const db = new DatabaseSync(file);
    db.exec(`VACUUM INTO '${copy}'`);
    db.close();
    return copy;
  };
  /** What an index answers to queries the words near anchors decide. */
  const answers = (f: string) => {
    const reader = new IndexReader(f);
    const out = ['median', 'median aggregate', 'teapot', 'again teapot', 'filler3 median'].map((q) =>
      reader.search({ query: q, language: 'en', limit: 10, exact: true }).results.map((r) => r.url),
    );
    reader.close();
    return out;
  };

  it('a page whose index anchors stand before every word of the query comes first', () => {
    assert.deepEqual(urls('median'), ['indexed.html', 'plain.html']);
    assert.deepEqual(urls('median aggregate'), ['indexed.html', 'plain.html']);
  });

  it('a definition near an anchor is still a definition; a word near one only is none', () => {
    const db = new DatabaseSync(file, { readOnly: true });
    const row = (head: string, page: string) =>
      db.prepare('SELECT weight, kind FROM defs d JOIN pages p ON p.id = d.page_id WHERE head = ? AND p.url LIKE ?').get(head, `%/${page}`);
    const near = (page: string) =>
      (
        db.prepare('SELECT words FROM near_words n JOIN pages p ON p.id = n.page_id WHERE p.url LIKE ?').get(`%/${page}`) as {
          words: string;
        }
      ).words;
    assert.deepEqual({ ...row('teapot', 'teapot-defined.html') }, { weight: 1, kind: 0 });
    assert.equal(row('teapot', 'teapot-mentioned.html'), undefined);
    assert.deepEqual(near('teapot-mentioned.html').split(' '), ['again', 'teapot']);
    assert.match(near('teapot-defined.html'), /\bteapot\b/);
    db.close();
    assert.deepEqual(urls('teapot'), ['teapot-defined.html', 'teapot-mentioned.html']);
  });

  it('an index keeping them as definitions (from before near_words) answers alike, and its next run moves them', () => {
    const old = copyOf('near-before.db');
    const before = new DatabaseSync(old);
    const words = before.prepare('SELECT page_id AS id, words FROM near_words').all() as { id: number; words: string }[];
    const def = before.prepare(
      `INSERT INTO defs (head, page_id, weight, kind) VALUES (?, ?, 0, ${DEF_NEAR}) ON CONFLICT DO UPDATE SET kind = kind | ${DEF_NEAR}`,
    );
    for (const r of words) for (const w of r.words.split(' ')) def.run(w, r.id);
    before.exec("DELETE FROM near_words; DELETE FROM search_meta WHERE key = 'near_words'");
    before.close();
    const expected = answers(file);
    assert.deepEqual(answers(old), expected);
    const writer = new SqliteIndexWriter(old);
    writer.finish();
    writer.close();
    const moved = new DatabaseSync(old, { readOnly: true });
    assert.deepEqual(moved.prepare('SELECT page_id AS id, words FROM near_words ORDER BY page_id').all(), words);
    assert.equal((moved.prepare(`SELECT COUNT(*) AS n FROM defs WHERE kind & ${DEF_NEAR}`).get() as { n: number }).n, 0);
    moved.close();
    assert.deepEqual(answers(old), expected);
  });

  it('a page’s words near its anchors are signed in its signals; an index from before the signatures answers alike, and its next run signs them', () => {
    const signatures = (f: string) => {
      const db = new DatabaseSync(f, { readOnly: true });
      const rows = db.prepare('SELECT id, near_signature AS bits FROM signals WHERE near_signature IS NOT NULL ORDER BY id').all() as {
        id: number;
        bits: Uint8Array;
      }[];
      const near = db.prepare('SELECT page_id AS id, words FROM near_words ORDER BY page_id').all() as { id: number; words: string }[];
      const marked = db.prepare(`SELECT 1 FROM search_meta WHERE key = '${NEAR_SIGNATURES_META}'`).get() !== undefined;
      db.close();
      return { rows: rows.map((r) => ({ id: r.id, bits: [...r.bits] })), near, marked };
    };
    const now = signatures(file);
    assert.ok(now.marked);
    assert.ok(now.near.length >= 3);
    assert.deepEqual(
      now.rows,
      now.near.map((r) => ({ id: r.id, bits: [...signatureOf(r.words.split(' '), NEAR_SIGNATURE_BITS)] })),
      'every page with words near an anchor, and only those, signed with them',
    );
    const old = copyOf('near-unsigned.db');
    const before = new DatabaseSync(old);
    before.exec(`UPDATE signals SET near_signature = NULL; DELETE FROM search_meta WHERE key = '${NEAR_SIGNATURES_META}'`);
    before.close();
    const expected = answers(file);
    assert.deepEqual(answers(old), expected);
    const writer = new SqliteIndexWriter(old);
    assert.ok(writer.upgrading());
    const told: [FinishStep, number, number][] = [];
    writer.finish((step, done, total) => told.push([step, done, total]));
    writer.close();
    assert.deepEqual(signatures(old), now);
    // The signing is a step of its own, shown as it goes: first and last told.
    const upgrade = told.filter(([step]) => step === 'upgrade');
    assert.deepEqual(
      [upgrade[0], upgrade.at(-1)],
      [
        ['upgrade', 0, 1],
        ['upgrade', 1, 1],
      ],
    );
    assert.equal(told[0]?.[0], 'upgrade', 'before the other steps');
    // An index already signed has no such step.
    const again = new SqliteIndexWriter(old);
    assert.ok(!again.upgrading());
    const fresh = new SqliteIndexWriter(join(dir, 'fresh.db'));
    assert.ok(!fresh.upgrading(), 'a new index has nothing to upgrade');
    fresh.close();
    const steps = new Set<FinishStep>();
    again.finish((step) => steps.add(step));
    again.close();
    assert.ok(steps.has('optimise') && !steps.has('upgrade'));
    assert.deepEqual(answers(old), expected);
  });

  it('a reader with no room to keep what it reads answers as one that keeps it, query after query', () => {
    const queries = ['median', 'median aggregate', 'teapot', 'again teapot', 'filler3 median', 'median'];
    const run = (reader: IndexReader) => {
      // Each query three times: the second and third find kept what the first read, if anything.
      const out = queries.flatMap((q) => [0, 1, 2].map(() => reader.search({ query: q, language: 'en', limit: 10, exact: true }).results));
      reader.close();
      return out;
    };
    const roomy = run(new IndexReader(file));
    assert.ok(roomy.every((results) => results.length > 0));
    // Nothing kept between queries (its signals and lists read for each query and used by it).
    assert.deepEqual(run(new IndexReader(file, { listCacheBytes: 0 })), roomy);
  });
});

describe('the words around the links to a page', () => {
  const file = join(dir, 'linked.db');
  const writer = new SqliteIndexWriter(file);
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  // Two pages alike; a third links to both, to one from a paragraph about what was asked. The
  // other comes first in the index, so it wins a tie.
  const text = '<p>Computes the median of a sample, or of a whole population.</p>';
  writer.upsert(buildDocument({ url: 'https://docs.test/a.html', html: page('Functions', text) }));
  writer.upsert(buildDocument({ url: 'https://docs.test/b.html', html: page('Functions', text) }));
  writer.upsert(
    buildDocument({
      url: 'https://docs.test/guide.html',
      html: page(
        'Guide',
        '<p>For the median of a sample, see <a href="b.html">here</a>.</p><p>Other functions are <a href="a.html">here</a>.</p>',
      ),
    }),
  );
  const urls = searchOf(writer, file);

  it('a page linked from a block holding every word of the query comes first', () => {
    const found = urls('median sample').filter((u) => u !== 'guide.html');
    assert.deepEqual(found, ['b.html', 'a.html']);
    assert.deepEqual(
      urls('population').filter((u) => u !== 'guide.html'),
      ['a.html', 'b.html'],
      'no link stands among these words',
    );
  });
});

describe('pages in the language asked for among many in others', () => {
  const file = join(dir, 'languages.db');
  const writer = new SqliteIndexWriter(file);
  // Seventy short English pages full of the query's words (on sites of their own) rank above two
  // long pages holding each once: a French one, and a Dutch translation's page not translated yet
  // (English text under /nl-NL/, as the handbook's are).
  for (let i = 0; i < 70; i++)
    writer.upsert(
      buildDocument({ url: `https://en${i}.test/notes.html`, html: html(`Notes ${i}`, `quokka zanzibar quokka zanzibar note ${i}`) }),
    );
  const french = longText(['le', 'voyage', 'des', 'animaux', 'est', 'une', 'histoire', 'longue', 'et', 'belle']);
  writer.upsert(
    buildDocument({
      url: 'https://fr.test/voyage.html',
      html: `<!doctype html><html lang="fr"><head><title>Voyage</title></head><body><main><h1>Voyage</h1><p>${french} quokka zanzibar</p></main></body></html>`,
    }),
  );
  const english = longText(STORY);
  writer.upsert(buildDocument({ url: 'https://handbook.test/nl-NL/journey.html', html: html('Journey', `${english} quokka zanzibar`) }));
  writer.finish();
  writer.close();
  const reader = new IndexReader(file);
  after(() => reader.close());
  const urls = (language: string) =>
    reader.search({ query: 'quokka zanzibar', language, limit: 10, exact: true }).results.map((r) => r.url);

  it('the first stage alone ranks them below the sixty best', () => {
    for (const url of ['https://fr.test/voyage.html', 'https://handbook.test/nl-NL/journey.html'])
      leftOutOfFirstStage(file, url, 'quokka zanzibar');
    assert.ok(
      urls('en').every((u) => u.endsWith('.test/notes.html')),
      'in English, the English pages',
    );
  });

  it('are candidates, and first, when their language is asked for', () => {
    assert.equal(urls('fr')[0], 'https://fr.test/voyage.html');
  });

  it("a page is in the language of its text and in its address's", () => {
    const db = new DatabaseSync(file, { readOnly: true });
    const id = (url: string) => (db.prepare('SELECT id FROM pages WHERE url = ?').get(url) as { id: number }).id;
    const [fr, nl, en] = ['https://fr.test/voyage.html', 'https://handbook.test/nl-NL/journey.html', 'https://en3.test/notes.html'].map(id);
    const languages = new LanguagePages(db);
    const inLanguage = (language: string, allowed: Uint8Array | null = null) => {
      const pages = languages.of(language, 1, allowed);
      return [fr, nl, en].filter((p) => pages[p as number]);
    };
    assert.deepEqual(inLanguage('fr'), [fr]);
    assert.deepEqual(inLanguage('nl'), [nl], 'by its address');
    assert.deepEqual(inLanguage('en'), [nl, en], 'by its text');
    assert.deepEqual(inLanguage('de'), []);
    const allowed = new Uint8Array(200);
    allowed[en as number] = 1;
    assert.deepEqual(inLanguage('en', allowed), [en], 'of the pages a site filter allows');
    assert.deepEqual(inLanguage('en'), [nl, en], 'which leaves the language as it was');
    db.close();
  });

  it('are read when a reader warms, once for a version of the index, and a warm reader answers as a cold one', () => {
    const db = new DatabaseSync(file);
    const id = (url: string) => (db.prepare('SELECT id FROM pages WHERE url = ?').get(url) as { id: number }).id;
    const fr = id('https://fr.test/voyage.html');
    const languages = new LanguagePages(db);
    languages.warm(1);
    const lang = (db.prepare('SELECT markup_lang FROM signals WHERE id = ?').get(fr) as { markup_lang: string | null }).markup_lang;
    // Changed on this connection: the version the caller gives is what tells the pages to read again.
    db.prepare("UPDATE signals SET markup_lang = 'de' WHERE id = ?").run(fr);
    try {
      assert.equal(languages.of('de', 1, null)[fr], 0, 'as read when it warmed');
      assert.equal(languages.of('de', 2, null)[fr], 1, 'read again for the next version');
    } finally {
      db.prepare('UPDATE signals SET markup_lang = ? WHERE id = ?').run(lang, fr);
      db.close();
    }
    const cold = new IndexReader(file);
    const warm = new IndexReader(file);
    try {
      warm.warm();
      warm.warm();
      for (const req of [
        { query: 'voyage', language: 'fr', limit: 10 },
        { query: 'notes', language: 'en', limit: 10, sites: ['en3.test'] },
      ]) {
        const answer = warm.search(req);
        assert.ok(answer.results.length > 0, req.query);
        assert.deepEqual(answer, cold.search(req));
      }
    } finally {
      cold.close();
      warm.close();
    }
  });
});

describe("the pages of a site the query's best keep coming back to", () => {
  const file = join(dir, 'focused.db');
  const writer = new SqliteIndexWriter(file);
  // Seventy pages of sites of their own full of the query's words, three of a manual's fuller, and
  // the manual's page on the words, long and titled by them; and pages without them (the words are
  // then worth something).
  const page = (url: string, title: string, body: string) => writer.upsert(buildDocument({ url, html: html(title, body) }));
  for (let i = 0; i < 100; i++) page(`https://other${i}.test/page.html`, `Page ${i}`, `something else entirely ${i}`);
  for (let i = 0; i < 3; i++)
    page(`https://manual.test/notes-${i}.html`, `Notes ${i}`, `quokka zanzibar quokka zanzibar quokka zanzibar note ${i}`);
  for (let i = 0; i < 70; i++) page(`https://en${i}.test/notes.html`, `Notes ${i}`, `quokka zanzibar quokka zanzibar note ${i}`);
  page('https://manual.test/guide.html', 'Quokka and zanzibar', `${longText(STORY, 400)} quokka zanzibar`);
  writer.finish();
  writer.close();

  it('are candidates when the first stage ranks them below the sixty best', () => {
    leftOutOfFirstStage(file, 'https://manual.test/guide.html', 'quokka zanzibar');
    const reader = new IndexReader(file);
    const urls = (query: string) => reader.search({ query, language: 'en', limit: 10, exact: true }).results.map((r) => r.url);
    assert.equal(
      urls('quokka zanzibar')[0],
      'https://manual.test/guide.html',
      'the page titled by the query, on the site of three of the best',
    );
    reader.close();
  });
});

describe('the pages of a site holding the pages that hold all of a query far beyond chance', () => {
  const file = join(dir, 'holding.db');
  const writer = new SqliteIndexWriter(file);
  // A handbook of thirty long pages, each holding a pair of rare words (its guide twice); seventy
  // short pages of sites of their own holding both; and 640 pages holding neither. Thirty of the
  // hundred pages holding the pair are on one site, where chance would put four (a surprise of
  // 34, sites.ts surprisingHost); the first stage's sixty best are short pages.
  const page = (url: string, title: string, body: string) => writer.upsert(buildDocument({ url, html: html(title, body) }));
  for (let i = 0; i < 640; i++) page(`https://other${i}.test/page.html`, `Page ${i}`, `something else entirely ${i}`);
  for (let i = 0; i < 70; i++) page(`https://en${i}.test/notes.html`, `Notes ${i}`, `quokka zanzibar with a note ${i}`);
  for (let i = 0; i < 29; i++)
    page(`https://handbook.test/chapter-${i}.html`, `Chapter ${i}`, `${longText(STORY, 400)} quokka ${i} zanzibar`);
  page('https://handbook.test/guide.html', 'The guide', `${longText(STORY, 400)} quokka zanzibar, quokka zanzibar`);
  writer.finish();
  writer.close();

  it('are candidates, and count among the pages whose sites say what the query is about', () => {
    leftOutOfFirstStage(file, 'https://handbook.test/guide.html', 'quokka zanzibar');
    const reader = new IndexReader(file);
    after(() => reader.close());
    const urls = (query: string) => reader.search({ query, language: 'en', limit: 10, exact: true }).results.map((r) => r.url);
    // Taken in alone, the guide is a candidate but not first: its site's pages are few among the
    // pages whose sites say what the query is about (the first stage's best) unless they count there.
    assert.equal(urls('quokka zanzibar')[0], 'https://handbook.test/guide.html');
    // One word alone is held by the same pages.
    assert.equal(urls('quokka')[0], 'https://handbook.test/guide.html');
  });
});

describe("a site holding far more of the query's best than chance, among pages alone on their sites", () => {
  /** Writes 3,000 pages holding neither word (on sites of their own, or with `manualsOwn` on the
   * manual's); 44 short pages holding both, each alone on its site, one of them titled by the
   * query and named by it in its address; and a manual's guide titled by the query with 15 more of
   * its pages holding both, all of them long. The 60 pages holding the query are the first stage's
   * 60 best, 16 of them the manual's. The results' addresses for the query. */
  function resultsOf(name: string, manualsOwn: boolean): string[] {
    const file = join(dir, name);
    const writer = new SqliteIndexWriter(file);
    const page = (url: string, title: string, body: string) => writer.upsert(buildDocument({ url, html: html(title, body) }));
    for (let i = 0; i < 3000; i++)
      page(
        manualsOwn ? `https://manual.test/page-${i}.html` : `https://other${i}.test/page.html`,
        `Page ${i}`,
        `something else entirely ${i}`,
      );
    page('https://en0.test/quokka-zanzibar.html', 'Quokka and zanzibar', 'quokka zanzibar, quokka zanzibar');
    for (let i = 1; i < 44; i++) page(`https://en${i}.test/notes.html`, `Notes ${i}`, `quokka zanzibar with a note ${i}`);
    for (let i = 0; i < 15; i++)
      page(`https://manual.test/chapter-${i}.html`, `Chapter ${i}`, `${longText(STORY, 400)} quokka ${i} zanzibar`);
    page('https://manual.test/guide.html', 'Quokka and zanzibar', `${longText(STORY, 400)} quokka zanzibar`);
    writer.finish();
    writer.close();
    const reader = new IndexReader(file);
    try {
      return reader.search({ query: 'quokka zanzibar', language: 'en', limit: 10, exact: true }).results.map((r) => r.url);
    } finally {
      reader.close();
    }
  }

  it('comes first: its focus is measured against the best pages on sites that recur', () => {
    // 16 pages of 3,060 hold 0.3 of the 60 by chance: a surprise of 47.
    const urls = resultsOf('recurring.db', false);
    assert.equal(urls.length, 10);
    assert.deepEqual(urls.slice(0, 2), ['https://manual.test/guide.html', 'https://en0.test/quokka-zanzibar.html']);
  });

  it('is measured against all of them when it is much of the index, as a manual is on a small web', () => {
    // 3,016 pages of 3,060 hold 59 of the 60 by chance: the short page named by the query comes first.
    const urls = resultsOf('recurring-most.db', true);
    assert.deepEqual(urls.slice(0, 2), ['https://en0.test/quokka-zanzibar.html', 'https://manual.test/guide.html']);
  });
});

describe('a query that is one identifier, among many short pages naming it once', () => {
  const file = join(dir, 'identifier.db');
  const writer = new SqliteIndexWriter(file);
  const page = (url: string, title: string, body: string) => writer.upsert(buildDocument({ url, html: html(title, body) }));
  for (let i = 0; i < 80; i++) page(`https://notes${i}.test/notes.html`, `Notes ${i}`, `the quokka_zanzibar_wombat call ${i}`);
  const about = 'https://docs.test/marsupials.html';
  page(
    about,
    'Marsupial calls',
    `${longText(STORY, 400)} quokka_zanzibar_wombat opens a quokka zanzibar. ${'The quokka zanzibar holds a wombat. '.repeat(10)}`,
  );
  const search = searchOf(writer, file);

  it('has the page about it first, which says its words again and again', () => {
    leftOutOfFirstStage(file, about, 'quokka_zanzibar_wombat');
    assert.equal(search('quokka_zanzibar_wombat')[0], 'marsupials.html');
  });
});

/** Languages a manual is translated into, by the path segment naming each, as the handbook's are. */
const LOCALES =
  'ar-MA cs-CZ da-DK de-DE el-GR es-ES fa-IR fi-FI hr-HR hu-HU id-ID it-IT ja-JP ko-KR nb-NO nl-NL pl-PL pt-BR pt-PT ro-RO ru-RU sk-SK sv-SE tr-TR uk-UA vi-VN zh-CN zh-TW en-US'.split(
    ' ',
  );
/** A long French text that holds no word of the queries. */
const FRENCH = ['le', 'voyage', 'des', 'animaux', 'est', 'une', 'histoire', 'longue', 'et', 'belle'];

/**
 * A manual's page in 30 languages on `host`, each holding `words` once: 29 copies not translated yet
 * (English text under each language's address) and the French one, translated and longer, so that
 * the first stage ranks it below the 29 on its own site. The French page's address.
 */
function translatedGuide(page: (url: string, title: string, body: string, lang?: string) => void, host: string, words: string): string {
  for (const locale of LOCALES) page(`https://${host}/${locale}/guide.html`, 'Quokka and zanzibar', `${longText(STORY, 400)} ${words}`);
  const french = `https://${host}/fr-FR/guide.html`;
  page(french, 'Quokka et zanzibar', `${longText(FRENCH, 700)} ${words}`, 'fr');
  return french;
}

/** Thirty short French pages of sites of their own holding the query's words, above the manual's
 * French page: the first stage's best pages in French (#inLanguage's) leave it out. */
function frenchNotes(page: (url: string, title: string, body: string, lang?: string) => void): void {
  for (let i = 0; i < 30; i++) page(`https://fr${i}.test/notes.html`, `Notes ${i}`, `quokka zanzibar une note ${i}`, 'fr');
}

/** Checks that the first stage's SITE_CANDIDATES (20) best pages of `host` for `query` leave `url` out. */
function belowItsSitesBest(file: string, host: string, url: string, query: string): void {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const stage = new PostingsStage(db);
    assert.ok(stage.refresh());
    const rows = db.prepare('SELECT id, url FROM pages').all() as { id: number; url: string }[];
    const site = new Uint8Array(Math.max(...rows.map((r) => r.id)) + 1);
    for (const r of rows) if (new URL(r.url).host === host) site[r.id] = 1;
    const id = (rows.find((r) => r.url === url) as { id: number }).id;
    const { concepts, joins } = parseQuery(query);
    const best = stage.rank(concepts, joins, 20, site).map((r) => r.id);
    assert.equal(best.length, 20);
    assert.ok(!best.includes(id), "the site's twenty best leave it out");
  } finally {
    db.close();
  }
}

describe("a site's pages in the language asked for, when its best are in others", () => {
  const langHtml = (title: string, body: string, lang: string) =>
    `<!doctype html><html lang="${lang}"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

  type Page = (url: string, title: string, body: string, lang?: string) => void;
  /**
   * An index of `others` pages holding none of the query, what `pages` writes, 30 short French
   * pages holding it and `host`'s guide in 30 languages. Checks that the French guide is left out
   * of the first stage's best, of its site's and of its best in French, and that it comes first
   * asked in French, and not asked in English.
   */
  function frenchGuideFirst(name: string, host: string, others: number, pages: (page: Page) => void): void {
    const file = join(dir, `${name}.db`);
    const writer = new SqliteIndexWriter(file);
    const page: Page = (url, title, body, lang = 'en') => writer.upsert(buildDocument({ url, html: langHtml(title, body, lang) }));
    for (let i = 0; i < others; i++) page(`https://other${i}.test/page.html`, `Page ${i}`, `something else entirely ${i}`);
    pages(page);
    frenchNotes(page);
    const french = translatedGuide(page, host, 'quokka zanzibar');
    writer.finish();
    writer.close();
    leftOutOfFirstStage(file, french, 'quokka zanzibar');
    belowItsSitesBest(file, host, french, 'quokka zanzibar');
    const reader = new IndexReader(file);
    after(() => reader.close());
    const first = (language: string) => reader.search({ query: 'quokka zanzibar', language, limit: 10, exact: true }).results[0]?.url;
    assert.equal(first('fr'), french);
    assert.notEqual(first('en'), french, 'asked in English, another page');
  }

  it("are candidates on a site the first stage's best keep coming back to, and first", () => {
    // As the suite of the site the query's best keep coming back to: three of its pages among them.
    frenchGuideFirst('focused-languages', 'manual.test', 100, (page) => {
      for (let i = 0; i < 3; i++)
        page(`https://manual.test/notes-${i}.html`, `Notes ${i}`, `quokka zanzibar quokka zanzibar quokka zanzibar note ${i}`);
      for (let i = 0; i < 70; i++) page(`https://en${i}.test/notes.html`, `Notes ${i}`, `quokka zanzibar quokka zanzibar note ${i}`);
    });
  });

  it('are candidates on a site holding the pages that hold all of a query far beyond chance, and first', () => {
    // As the suite of the site holding the pages that hold all of a query: 30 of the 130 pages
    // holding the pair are the handbook's guide in 30 languages, where chance would put 3.5.
    frenchGuideFirst('holding-languages', 'handbook.test', 1000, (page) => {
      for (let i = 0; i < 70; i++) page(`https://en${i}.test/notes.html`, `Notes ${i}`, `quokka zanzibar with a note ${i}`);
    });
  });
});

describe('the reference of a dotted name', () => {
  const file = join(dir, 'siblings.db');
  const writer = new SqliteIndexWriter(file);
  const dl = (names: string[]) =>
    `<dl>${names.map((n) => `<dt id="${n}">${n}(x)</dt><dd>The ${n.split('.').pop()} step of the widget, with its own long explanation of how the widget behaves when it is used.</dd>`).join('')}</dl>`;
  const family = Array.from({ length: 30 }, (_, i) => `widget.step${i}`);
  const doc = (name: string, title: string, body: string) =>
    buildDocument({
      url: `https://docs.test/${name}.html`,
      html: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`,
    });
  // The reference defines widget.spin among thirty more of widget's names; a page that names it in
  // passing defines it beside one name of another namespace, and is short, so BM25 puts it first.
  writer.upsert(doc('passing', 'Notes', dl(['widget.spin', 'kettle.boil'])));
  writer.upsert(doc('reference', 'Reference', dl([...family.slice(0, 15), 'widget.spin', ...family.slice(15)])));
  const urls = searchOf(writer, file);

  it('is the page that defines the name among the other names of its namespace', () => {
    assert.deepEqual(urls('widget.spin'), ['reference.html', 'passing.html']);
    // Without the feature the short page wins: the test sees what it is for.
    const weight = WEIGHTS.siblings;
    WEIGHTS.siblings = 0;
    try {
      assert.deepEqual(urls('widget.spin'), ['passing.html', 'reference.html']);
    } finally {
      WEIGHTS.siblings = weight;
    }
  });

  it('counts for a dotted name only, not for the same words typed apart', () => {
    assert.equal(urls('widget spin')[0], 'passing.html');
  });
});

describe('the pages the index links to most, for a question', () => {
  const file = join(dir, 'hubs.db');
  const writer = new SqliteIndexWriter(file);
  // Seventy pages of sites of their own full of the question's words, each in a paragraph of its
  // own, rank above the manual's reference page, long and holding them once in one paragraph;
  // every other page of the manual links to it, so it is the page the index links to most (a
  // hub). Pages without the words make them worth something.
  const page = (url: string, title: string, main: string) =>
    writer.upsert(
      buildDocument({
        url,
        html: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${main}</main></body></html>`,
      }),
    );
  for (let i = 0; i < 100; i++) page(`https://other${i}.test/page.html`, `Page ${i}`, `<p>something else entirely ${i}</p>`);
  for (let i = 0; i < 70; i++)
    page(`https://en${i}.test/notes.html`, `Notes ${i}`, `<p>remove remove note ${i}</p><p>folder folder</p><p>quokka quokka</p>`);
  for (let i = 0; i < 20; i++)
    page(
      `https://manual.test/topic-${i}.html`,
      `Topic ${i}`,
      `<p>A topic of the manual ${i}, see <a href="reference.html">the reference</a>.</p>`,
    );
  page('https://manual.test/reference.html', 'Reference', `<p>${longText(STORY, 400)}</p><p>To remove a quokka folder, call it.</p>`);
  writer.finish();
  writer.close();
  const reference = 'https://manual.test/reference.html';

  it('answer a question that the first stage alone ranks below its sixty best', () => {
    // The words the question searches (its weak words are not).
    leftOutOfFirstStage(file, reference, 'remove quokka folder');
    const db = new DatabaseSync(file, { readOnly: true });
    const authority = (url: string) =>
      (db.prepare('SELECT authority FROM signals WHERE url = ?').get(url) as { authority: number }).authority;
    assert.ok(authority(reference) >= HUB_AUTHORITY, 'the reference is a hub');
    assert.ok(authority('https://en0.test/notes.html') < HUB_AUTHORITY, 'the notes are not');
    db.close();
    const reader = new IndexReader(file);
    const urls = (query: string) => reader.search({ query, language: 'en', limit: 10, exact: true }).results.map((r) => r.url);
    try {
      assert.equal(urls('how do I remove a quokka folder')[0], reference);
      // A name is answered by the page that defines it, which need not be a hub: the same words
      // typed as a name leave the first stage's best as they are.
      assert.ok(!urls('quokka folder remove').includes(reference), 'not for what does not read as a question');
    } finally {
      reader.close();
    }
  });

  it('are read once for a version of the index, of the pages a site filter allows', () => {
    const db = new DatabaseSync(file);
    const id = (url: string) => (db.prepare('SELECT id FROM signals WHERE url = ?').get(url) as { id: number }).id;
    const [ref, note] = [id(reference), id('https://en0.test/notes.html')] as [number, number];
    const hubs = new HubPages(db);
    hubs.warm(1);
    const listed = (version: number, allowed: Uint8Array | null = null) => [...hubs.of(version, allowed).ids];
    assert.deepEqual(listed(1), [ref]);
    assert.ok((hubs.of(1, null).authority[0] as number) >= HUB_AUTHORITY);
    // Changed on this connection: the version the caller gives is what tells the hubs to read again.
    db.prepare('UPDATE signals SET authority = ? WHERE id = ?').run(HUB_AUTHORITY, note);
    try {
      assert.deepEqual(listed(1), [ref], 'as read when it warmed');
      assert.deepEqual(
        listed(2),
        [ref, note].sort((a, b) => a - b),
        'read again for the next version, in the order of ids',
      );
      const allowed = new Uint8Array(ref + note + 1);
      allowed[note] = 1;
      assert.deepEqual(listed(2, allowed), [note], 'of the pages a site filter allows');
      assert.equal(listed(2).length, 2, 'which leaves the hubs as they were');
    } finally {
      db.prepare('UPDATE signals SET authority = 1 WHERE id = ?').run(note);
      db.close();
    }
  });
});

describe('a candidate that defines the query', () => {
  const file = join(dir, 'many-definers.db');
  const writer = new SqliteIndexWriter(file);
  const page = (name: string, main: string) =>
    writer.upsert(
      buildDocument({
        url: `https://docs.test/${name}.html`,
        html: `<!doctype html><html lang="en"><head><title>${name}</title></head><body><main><h1>${name}</h1>${main}</main></body></html>`,
      }),
    );
  const define = (term: string) => `<dl><dt>${term}</dt><dd>An animal of the island, small and fond of leaves.</dd></dl>`;
  const about = (length: number) => `<p>${longText([...STORY, 'quokka', 'burrow'], length)}</p>`;
  // More pages define the whole query than join the candidates for defining it (50): long pages
  // that hold it once. Pages without it make its words worth something.
  for (let i = 0; i < 70; i++) page(`glossary-${i}`, `${define('quokka burrow')}<p>${longText(STORY, 1000)}</p>`);
  for (let i = 0; i < 200; i++) page(`story-${i}`, `<p>${longText(STORY)} ${i}</p>`);
  // The notes hold it more often than the guide, which defines a part of it (more weakly than
  // the glossaries define all of it, so it is not among the definers that join).
  page('notes', `${about(120)}<p>A quokka burrow, and a quokka burrow again.</p>`);
  page('guide', `${define('quokka')}${about(40)}<p>${longText(STORY, 200)}</p>`);
  writer.finish();
  writer.close();

  it('counts as defining it however many other pages define it too', () => {
    const reader = new IndexReader(file);
    after(() => reader.close());
    const found = reader.search({ query: 'quokka burrow', language: 'en', limit: 100, exact: true }).results.map((r) => r.url.slice(18));
    const [guide, notes] = [found.indexOf('guide.html'), found.indexOf('notes.html')];
    assert.ok(guide >= 0 && notes >= 0, `both are found (${found.join(', ')})`);
    assert.ok(guide < notes, `the guide ranks above the notes (${found.join(', ')})`);
  });
});
