import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { buildDocument } from '#service/search/document.ts';
import { SqliteSearchBackend } from '#service/search/sqlite/backend.ts';
import { indexContents } from '#service/search/sqlite/test-index-contents.ts';
import { SqliteIndexWriter } from '#service/search/sqlite/writer.ts';
import { httpResponse, page, runIndex, warcRecord } from '../helpers/search.ts';

/** Pages that link to each other, so that building one reads the others' links. */
const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
const pageOf = (w: string, i: number) => ({
  url: `https://site.test/${w}.html`,
  html: page(`The ${w} page`, `<p>All about ${w}.</p><p>See <a href="/${WORDS[(i + 1) % WORDS.length]}.html">the next page</a>.</p>`),
});

/** What a run stopped after reading `pages` leaves in DATA_DIR `dir` (killed before or in its
 * finish(): what finish() did not commit is rolled back, the pages read stay marked). */
function stoppedRun(dir: string, pages: { url: string; html: string }[]): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  for (const p of pages) writer.upsert(buildDocument(p));
  writer.close();
  return file;
}

describe('npm run index -- --resume: what a stopped run left', () => {
  const root = mkdtempSync(join(tmpdir(), 'periscope-test-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const pages = WORDS.map(pageOf);
  const warc = join(root, 'pages.warc.gz');
  writeFileSync(warc, Buffer.concat(pages.map((p) => gzipSync(warcRecord('response', p.url, httpResponse(p.html))))));

  it('builds the pages a stopped run read, into the index a whole run makes, reading no source', async () => {
    const whole = runIndex(join(root, 'whole'), [warc, '--quiet']);
    assert.equal(whole.status, 0, whole.stderr);
    const file = stoppedRun(join(root, 'stopped'), pages);
    assert.notDeepEqual(indexContents(file), indexContents(join(root, 'whole', 'index.db')), 'the stopped run has work left');

    const r = runIndex(join(root, 'stopped'), ['--resume']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^built 4 pages that a stopped run left, in \d+\.\d s \(\d+ pages\/s, at most \d+ MB of memory\)\nindex .*index\.db now holds 4 pages\n$/,
    );
    assert.match(r.stderr, /^indexing text: 4\/4 pages, /, 'no reading phase');
    assert.deepEqual(indexContents(file), indexContents(join(root, 'whole', 'index.db')));
    const backend = new SqliteSearchBackend(file);
    try {
      const answer = await backend.search({ query: 'gamma', language: 'en', limit: 10 });
      assert.equal(answer.results[0]?.url, 'https://site.test/gamma.html');
    } finally {
      backend.close();
    }

    const again = runIndex(join(root, 'stopped'), ['--resume', '--quiet']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^nothing to resume: every page in the index is built\n/);
  });

  it('says so when a run of sources builds what a stopped run left too', async () => {
    const file = stoppedRun(join(root, 'then-more'), pages.slice(0, 3));
    const r = runIndex(join(root, 'then-more'), [warc]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^3 pages that a stopped run left unbuilt are built with this run's\n/);
    assert.match(r.stdout, /^indexed 4 pages \(1 new, 3 replaced/);
    assert.deepEqual(indexContents(file), indexContents(join(root, 'whole', 'index.db')));
  });

  it('refuses a SOURCE, a generations folder, and an index that is not there', () => {
    const withSource = runIndex(join(root, 'stopped'), ['--resume', warc]);
    assert.equal(withSource.status, 2);
    assert.match(withSource.stderr, /--resume reads no SOURCE/);
    const generations = runIndex(join(root, 'stopped'), ['--resume'], { SEARCH_INDEX_DIR: join(root, 'generations') });
    assert.equal(generations.status, 2);
    assert.match(generations.stderr, /--resume is for the index of DATA_DIR/);
    assert.equal(existsSync(join(root, 'generations')), false, 'no generation begun');
    const none = runIndex(join(root, 'none'), ['--resume']);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /--resume: there is no index to resume at .*none\/index\.db/);
    assert.equal(existsSync(join(root, 'none', 'index.db')), false, 'none made');
    const bare = runIndex(join(root, 'none'), []);
    assert.equal(bare.status, 2);
    assert.match(bare.stderr, /name at least one SOURCE/);
  });
});
