import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { parseQuery } from '../tokenize.ts';
import { DescribedDefinitions } from './described.ts';
import { PostingsStage } from './postings.ts';
import { DEFINITION_SLOTS } from './schema.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-described-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
const entry = (name: string, text: string) => `<dt id="${name}">${name}(x)</dt><dd><p>${text}</p></dd>`;

/** A reference of kettle functions, each described, and a tutorial whose links name them. */
const reference = (extra = '') =>
  page(
    'Kettle reference',
    `<dl>${entry('kettle.boil', 'Heat the water until it bubbles.')}${entry('kettle.descale', 'Remove the limescale with citric acid.')}${entry(
      'kettle.pour',
      'Tip the spout and fill a cup.',
    )}${extra}</dl>`,
  );
const tutorial = (named = true) =>
  page(
    'Kettle tutorial',
    `<p>To make tea, first ${named ? '<a href="reference.html#kettle.boil">kettle.boil()</a>' : 'boil'} the fresh cold water from the tap.</p>
     <p>Hard water leaves deposits: <a href="reference.html#kettle.descale">kettle.descale()</a> clears the white crust.</p>`,
  );
const tools = page('Teapot reference', `<dl>${entry('teapot.steep', 'Leave the leaves in the hot water for three minutes.')}</dl>`);

const questions = [
  'how do I boil water',
  'remove limescale from the kettle',
  'clear the white crust',
  'fresh cold water from the tap',
  'fill a cup',
  'hot water leaves',
  'hot water leaves for minutes',
];

function index(name: string, pages: Record<string, string>, into?: string): string {
  const file = into ?? join(dir, `${name}.db`);
  const writer = new SqliteIndexWriter(file);
  for (const [path, html] of Object.entries(pages)) writer.upsert(buildDocument({ url: `https://docs.test/${path}`, html }));
  writer.finish();
  writer.close();
  return file;
}

/** Each question's pages, as the reader of `file` answers it. */
function answers(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  const postings = new PostingsStage(db);
  postings.refresh();
  const described = new DescribedDefinitions(db, postings);
  const url = db.prepare('SELECT url FROM pages WHERE id = ?');
  const out = questions.map((q) =>
    [
      ...described.pages(
        parseQuery(q).concepts.filter((c) => !c.stop),
        10,
      ),
    ]
      .map(([id, share]) => `${(url.get(id) as { url: string }).url} ${share.toFixed(12)}`)
      .join(', '),
  );
  postings.close();
  db.close();
  return out;
}

/** The same index as a version before decision 0122 left it: no definitions stored. */
function unstored(file: string): string {
  const copy = file.replace(/\.db$/, '-unstored.db');
  rmSync(copy, { force: true });
  const db = new DatabaseSync(file);
  db.exec(`VACUUM INTO '${copy}'`);
  db.close();
  const old = new DatabaseSync(copy);
  old.exec("DELETE FROM definitions; DELETE FROM described_terms; DELETE FROM search_meta WHERE key = 'definitions'");
  old.close();
  return copy;
}

const count = (file: string, sql: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  const n = (db.prepare(sql).get() as { n: number }).n;
  db.close();
  return n;
};

/** The definitions whose documents hold `term`. */
const held = (file: string, term: string) => count(file, `SELECT COALESCE(SUM(doc), 0) AS n FROM described_vocab WHERE term = '${term}'`);

describe('definitions stored in the index', () => {
  it('answer as the definitions worked out at the first question do, from their descriptions and the links naming them', () => {
    const file = index('stored', { 'reference.html': reference(), 'tutorial.html': tutorial(), 'teapot.html': tools });
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM definitions'), count(file, 'SELECT COUNT(*) AS n FROM described'));
    assert.equal(count(file, "SELECT links AS n FROM definitions WHERE term = 'kettle.descale'"), 1);
    // The tutorial's words around the link are the definition's, not the reference page's own.
    assert.equal(held(file, 'crust'), 1);
    const stored = answers(file);
    assert.deepEqual(stored, answers(unstored(file)));
    assert.match(stored[2] as string, /^https:\/\/docs\.test\/reference\.html /);
    assert.match(stored[6] as string, /^https:\/\/docs\.test\/teapot\.html /);
  });

  it('follow the pages and the links as they change, and go with a page', () => {
    const file = join(dir, 'changing.db');
    index('changing', { 'reference.html': reference(), 'tutorial.html': tutorial(), 'teapot.html': tools }, file);
    assert.equal(held(file, 'tap'), 1);
    assert.equal(held(file, 'minut'), 1);
    // The link naming kettle.boil goes, and the reference describes one more.
    index(
      'changing',
      { 'tutorial.html': tutorial(false), 'reference.html': reference(entry('kettle.whistle', 'Sing when the water boils.')) },
      file,
    );
    assert.equal(held(file, 'tap'), 0, 'the old link words are gone');
    assert.equal(held(file, 'sing'), 1);
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM definitions'), 5);
    assert.deepEqual(answers(file), answers(unstored(file)));
    // A page that no longer describes anything takes its definitions along.
    const db = new DatabaseSync(file, { readOnly: true });
    const teapot = (db.prepare("SELECT id FROM pages WHERE url LIKE '%teapot.html'").get() as { id: number }).id;
    db.close();
    index('changing', { 'teapot.html': page('Teapot reference', '<p>Moved to the new manual.</p>') }, file);
    assert.equal(count(file, `SELECT COUNT(*) AS n FROM definitions WHERE id / ${DEFINITION_SLOTS} = ${teapot}`), 0);
    assert.equal(held(file, 'minut'), 0);
    assert.equal(count(file, "SELECT json_extract(value, '$.count') AS n FROM search_meta WHERE key = 'definitions'"), 4);
    assert.deepEqual(answers(file), answers(unstored(file)));
  });

  it('are stored for every page by the next run on an index from before them, which answers as before until then', () => {
    const file = index('upgrade', { 'reference.html': reference(), 'tutorial.html': tutorial(), 'teapot.html': tools });
    const expected = answers(file);
    const old = unstored(file);
    assert.equal(count(old, 'SELECT COUNT(*) AS n FROM definitions'), 0);
    assert.deepEqual(answers(old), expected, 'worked out at the first question');
    // A run that reads nothing new stores them all.
    const writer = new SqliteIndexWriter(old);
    writer.finish();
    writer.close();
    assert.equal(count(old, 'SELECT COUNT(*) AS n FROM definitions'), count(old, 'SELECT COUNT(*) AS n FROM described'));
    assert.equal(count(old, "SELECT json_extract(value, '$.count') AS n FROM search_meta WHERE key = 'definitions'"), 4);
    assert.deepEqual(answers(old), expected);
  });
});
