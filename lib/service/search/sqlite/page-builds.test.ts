import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { PageBuilds } from './page-builds.ts';
import { asWrittenBefore0085 } from './test-index-before-0085.ts';
import { indexContents as contents } from './test-index-contents.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-page-builds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TOPICS = ['kettle', 'router', 'descaling', 'replication', 'vacuum', 'brewing', 'firewall', 'checkpoint'];

/** Pages that link to each other with anchor text and context, so that every part of a page's
 * build (its anchors, inbound link words, rank fields, terms and places) has something in it. */
function page(i: number, edition = 0): { url: string; html: string } {
  const topic = TOPICS[i % TOPICS.length] as string;
  const links = [1, 3, 7]
    .map((d) => (i + d + edition) % 60)
    .map((j) => `<li>See the <a href="/p/${j}.html">${TOPICS[j % TOPICS.length]} notes ${j}</a> for more.</li>`)
    .join('');
  const paragraphs = Array.from(
    { length: 2 + (i % 5) },
    (_, k) => `<p>${topic} step ${k}: ${'running the usual words '.repeat(1 + k)}</p>`,
  );
  return {
    url: `https://docs.test/p/${i}.html`,
    html: `<!doctype html><html lang="en"><head><title>${topic} guide ${i}</title></head><body><main><h1>${topic} ${i}</h1>
      <h2>Setup ${edition}</h2>${paragraphs.join('')}<ul>${links}</ul></main></body></html>`,
  };
}

function write(file: string, pages: readonly { url: string; html: string }[], threads: number): void {
  const writer = new SqliteIndexWriter(file, { threads, fullText: true });
  for (const p of pages) writer.upsert(buildDocument(p));
  writer.finish();
  writer.close();
}

describe('pages built on threads of their own in finish()', () => {
  const first = Array.from({ length: 60 }, (_, i) => page(i));
  // Changed pages move their links: pages not read again gain and lose inbound links.
  const second = Array.from({ length: 12 }, (_, i) => page(i * 5, 1));

  it('give an index identical to one built in the writer’s thread, table for table, and again after pages change', () => {
    const here = join(dir, 'here.db');
    const threaded = join(dir, 'threaded.db');
    write(here, first, 0);
    write(threaded, first, 2);
    const built = contents(here);
    assert.ok(Number.parseInt(built.get('link_words') as string) > 100, 'the pages have inbound link words to compare');
    assert.ok(Number.parseInt(built.get('postings') as string) > 50, 'and postings');
    assert.deepEqual(contents(threaded), built);

    write(here, second, 0);
    write(threaded, second, 3);
    const rebuilt = contents(here);
    assert.notDeepEqual(rebuilt, built, 'the second run changed the index');
    assert.deepEqual(contents(threaded), rebuilt);
  });

  it('move an older index’s page text as the writer’s thread does, when its postings are built again', () => {
    const base = join(dir, 'base.db');
    write(base, first, 0);
    asWrittenBefore0085(base);
    const here = join(dir, 'old-here.db');
    const threaded = join(dir, 'old-threaded.db');
    copyFileSync(base, here);
    copyFileSync(base, threaded);
    const old = contents(here);
    assert.equal(old.get('page_text'), undefined, 'the old form has no page_text table');
    write(here, [], 0);
    write(threaded, [], 1);
    const upgraded = contents(here);
    assert.match(upgraded.get('page_text') as string, /^[1-9]\d* rows/);
    assert.match(upgraded.get('passages') as string, /^0 rows/);
    assert.deepEqual(contents(threaded), upgraded);
  });

  it('have closed their connections once close() returns: a generation can be published at once', () => {
    const file = join(dir, 'publish.db');
    write(file, first.slice(0, 10), 0);
    const db = new DatabaseSync(file);
    const ids = Array.from({ length: 10 }, (_, i) => i + 1);
    for (let round = 0; round < 5; round++) {
      const builds = new PageBuilds(db, { threads: 2, fullText: false });
      assert.equal([...builds.pages(ids)].length, ids.length);
      builds.close();
      // What GenerationBuilder.publish does: refused while any other connection is open.
      db.exec('PRAGMA journal_mode = DELETE');
      db.exec('PRAGMA journal_mode = WAL');
    }
    db.close();
  });

  it('say why when a thread cannot build, rather than leave the writer waiting', () => {
    const file = join(dir, 'not-an-index.db');
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE unrelated (x)');
    const builds = new PageBuilds(db, { threads: 1, fullText: false });
    try {
      assert.throws(() => [...builds.pages([1, 2, 3])], /building pages for the index failed: .*no such table: page/s);
    } finally {
      builds.close();
      db.close();
    }
  });

  it('build in the writer’s thread for an index in memory, which no other connection can open', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE unrelated (x)');
    // In the writer's thread, the missing table is found at once, while the builder is made.
    assert.throws(() => new PageBuilds(db, { threads: 2, fullText: false }), /no such table: page/);
    db.close();
  });
});
