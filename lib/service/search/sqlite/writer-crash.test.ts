import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import type { FinishStep } from '../backend.ts';
import { buildDocument } from '../document.ts';
import { openIndexDatabase } from './schema.ts';
import { indexContents } from './test-index-contents.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-writer-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** More pages than the writer commits at once (200, while reading and in finish(), as these tests
 * ask), so that a run stopped part-way has committed some of its work. Each
 * edition has a word of its own, which each page defines a name with (`defs`) and links with
 * (`link_words`). */
const PAGES = 320;
const BATCH = 200;
const WORDS = ['zebra', 'yak'];
function page(i: number, edition: number): { url: string; html: string } {
  // The second edition's links go to a few pages, so that the pages' ranks change with it.
  const to = edition === 0 ? (i * 7) % PAGES : (i * i) % 17;
  return {
    url: `https://docs.test/p/${i}.html`,
    html: `<!doctype html><html lang="en"><head><title>Page ${i} ${WORDS[edition]}</title></head><body><main><h1>Page ${i}</h1>
      <p>The ${WORDS[edition]} notes of page ${i}, edition ${edition}: ${'plain words '.repeat(1 + (i % 9))}</p>
      <p>See <a href="/p/${to}.html">the ${WORDS[edition]} page ${to}</a>.</p>
      <dl><dt>${WORDS[edition]}_${i}</dt><dd>What the ${WORDS[edition]} of page ${i} means.</dd></dl></main></body></html>`,
  };
}

/** Whether the connection checks foreign keys (1) or not (0). */
const foreignKeys = (db: DatabaseSync) => (db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys;

/** Where a run stops: in a step of finish(), or while reading, after `at` pages. */
type Stop = { step: FinishStep | 'read'; at: number };

function index(file: string, edition: number, stop?: Stop, pages = PAGES): void {
  // The writer on a connection of the test's, so that a stop can close it as a crash would: what
  // was committed stays, the transaction open is rolled back.
  const db = openIndexDatabase(file);
  const writer = new SqliteIndexWriter(db, { threads: 1, batch: BATCH, buildBatch: BATCH });
  const fail = (step: Stop['step'], done: number) => {
    if (stop && step === stop.step && done >= stop.at) throw new Error('the power went out');
  };
  try {
    for (let i = 0; i < pages; i++) {
      fail('read', i);
      writer.upsert(buildDocument(page(i, edition)));
    }
    writer.finish(fail);
    writer.close();
  } finally {
    db.close();
  }
}

describe('a run stopped part-way, while reading or in finish()', () => {
  const before = join(dir, 'before.db');
  index(before, 0);
  const whole = join(dir, 'whole.db');
  copyFileSync(before, whole);
  index(whole, 1);
  const expected = indexContents(whole);
  it('compares indexes whose word-keyed tables have rows, none of them left staged', () => {
    for (const table of ['defs', 'link_words']) assert.doesNotMatch(expected.get(table) ?? '', /^0 rows/, table);
    for (const table of ['defs_staged', 'link_words_staged']) assert.match(expected.get(table) ?? '', /^0 rows/, table);
  });

  it('merges the staged rows with foreign keys unchecked, and checks them again after', () => {
    const file = join(dir, 'keys.db');
    copyFileSync(before, file);
    const db = openIndexDatabase(file);
    // 320 pages built 200 a commit: the last 120 are in a transaction still open when they are built.
    const writer = new SqliteIndexWriter(db, { threads: 1, batch: BATCH, buildBatch: BATCH });
    for (let i = 0; i < PAGES; i++) writer.upsert(buildDocument(page(i, 1)));
    const seen: number[] = [];
    const runsAttached = () => db.prepare("SELECT 1 FROM pragma_database_list WHERE name = 'posting_runs_store'").all().length;
    const runsAtWords: number[] = [];
    const logAtWords: number[] = [];
    writer.finish((step, done) => {
      if (step === 'words' && done === 0) {
        seen.push(foreignKeys(db));
        runsAtWords.push(runsAttached());
        logAtWords.push(statSync(`${file}-wal`).size);
      }
    });
    assert.deepEqual(seen, [0], 'unchecked while the rows move');
    assert.deepEqual(runsAtWords, [0], "the postings' runs released (their file deleted) before the words are merged");
    // Checkpointed after the runs went (commit-then-checkpoint.ts), and the log truncated.
    assert.deepEqual(logAtWords, [0], "the postings' log copied into the index before the words are merged");
    assert.equal((db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint, 1000);
    assert.equal(foreignKeys(db), 1, 'checked again after');
    writer.close();
    db.close();
    assert.deepEqual(indexContents(file), expected);
  });

  for (const stop of [
    { step: 'text', at: 250 },
    { step: 'terms', at: 0 },
    // The postings committed (and their runs' database detached), the staged rows not moved yet.
    { step: 'words', at: 0 },
    // The postings committed, the ranks not yet.
    { step: 'rank', at: 0 },
  ] satisfies Stop[]) {
    it(`leaves an index the next run completes, as if never stopped (stopped at ${stop.step} ${stop.at})`, () => {
      const file = join(dir, `stopped-${stop.step}.db`);
      copyFileSync(before, file);
      assert.throws(() => index(file, 1, stop), /the power went out/);
      // The next run, with nothing new to read.
      const db = openIndexDatabase(file);
      const writer = new SqliteIndexWriter(db, { threads: 1, batch: BATCH, buildBatch: BATCH });
      writer.finish();
      assert.equal(foreignKeys(db), 1, 'foreign keys checked again after the merge');
      writer.close();
      db.close();
      assert.deepEqual(indexContents(file), expected);
    });
  }

  for (const stop of [
    { step: 'text', at: 250 },
    { step: 'terms', at: 0 },
    { step: 'words', at: 1 },
    { step: 'rank', at: 0 },
  ] satisfies Stop[]) {
    it(`can finish again on the same writer after a finish() that failed (at ${stop.step} ${stop.at})`, () => {
      const file = join(dir, `again-${stop.step}.db`);
      copyFileSync(before, file);
      const db = openIndexDatabase(file);
      const writer = new SqliteIndexWriter(db, { threads: 1, batch: BATCH, buildBatch: BATCH });
      for (let i = 0; i < PAGES; i++) writer.upsert(buildDocument(page(i, 1)));
      assert.throws(
        () =>
          writer.finish((step, done) => {
            if (step === stop.step && done >= stop.at) throw new Error('the disk is full');
          }),
        /the disk is full/,
      );
      assert.equal(foreignKeys(db), 1, 'foreign keys checked again after a finish() that failed');
      writer.finish();
      assert.equal(foreignKeys(db), 1, 'foreign keys checked again after the merge');
      writer.close();
      db.close();
      assert.deepEqual(indexContents(file), expected);
    });
  }

  it('leaves the pages whose inbound links a run stopped while reading had changed for the next run to build', () => {
    // Stopped after 250 pages, of which the first 200 were committed: their links moved (edition 1),
    // and pages the run never read lost links from them (page 203 the one from page 29).
    const file = join(dir, 'stopped-read.db');
    copyFileSync(before, file);
    assert.throws(() => index(file, 1, { step: 'read', at: 250 }), /the power went out/);
    // What those 200 pages would have made of the index, read and finished in one run.
    const committed = join(dir, 'committed.db');
    copyFileSync(before, committed);
    index(committed, 1, undefined, 200);
    const wanted = indexContents(committed);
    assert.notDeepEqual(indexContents(file), wanted, 'the stopped run left work undone');
    const writer = new SqliteIndexWriter(file, { threads: 1, batch: BATCH, buildBatch: BATCH });
    writer.finish();
    writer.close();
    assert.deepEqual(indexContents(file), wanted);
  });
});

describe('a page taken out of the index by hand between a run’s reading and its finish()', () => {
  it('leaves no staged rows naming it, and the next finish() completes', () => {
    const file = join(dir, 'taken-out.db');
    const db = openIndexDatabase(file);
    const writer = new SqliteIndexWriter(db, { threads: 0 });
    for (let i = 0; i < 3; i++) writer.upsert(buildDocument(page(i, 0)));
    writer.close();
    const staged = db.prepare("SELECT COUNT(*) AS n FROM defs_staged WHERE page_id = (SELECT id FROM pages WHERE url LIKE '%/p/1.html')");
    assert.ok((staged.get() as { n: number }).n > 0, 'the page defines names, staged');
    db.exec("DELETE FROM pages WHERE url LIKE '%/p/1.html'");
    const again = new SqliteIndexWriter(db, { threads: 0 });
    again.finish();
    again.close();
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM defs_staged').get() as { n: number }).n, 0);
    assert.deepEqual(
      (db.prepare("SELECT head FROM defs WHERE head LIKE 'zebra%' ORDER BY head").all() as { head: string }[]).map((r) => r.head),
      ['zebra 0', 'zebra 2'],
    );
    db.close();
  });
});
