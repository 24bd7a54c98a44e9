import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import type { SearchAnswer } from '../backend.ts';
import { buildDocument } from '../document.ts';
import { SqliteSearchBackend } from './backend.ts';
import { indexMigrations } from './schema.ts';
import { asWrittenBefore0085, DROP_SIGNALS_INDEXES } from './test-index-before-0085.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-generation-schemas-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
const PAGES = [
  { url: 'https://docs.test/kettle.html', html: html('Kettles', '<p>Use citric acid to descale the kettle every month.</p>') },
  { url: 'https://docs.test/router.html', html: html('Routers', '<p>Restart the router when the firewall drops packets.</p>') },
  {
    url: 'https://docs.test/glossary.html',
    html: html(
      'Glossary',
      '<dl><dt>descaling</dt><dd>Removing limescale from a kettle.</dd></dl><p>See <a href="kettle.html">kettles</a>.</p>',
    ),
  },
];
const QUERIES = ['descale the kettle', 'what is descaling', 'router firewall', 'kettle'];
const KNOWN = indexMigrations.at(-1)?.version as number;

/** An index of PAGES in its current form. */
function current(): string {
  const file = join(dir, 'current.db');
  const writer = new SqliteIndexWriter(file);
  for (const p of PAGES) writer.upsert(buildDocument(p));
  writer.finish();
  writer.close();
  return file;
}

/** A copy of `from` as GenerationBuilder publishes it (one file, rollback journal), changed by `sql`. */
function generation(from: string, name: string, change: (file: string) => void = () => {}): string {
  const file = join(dir, name);
  copyFileSync(from, file);
  change(file);
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = DELETE');
  db.close();
  return file;
}

const sql = (text: string) => (file: string) => {
  const db = new DatabaseSync(file);
  db.exec(text);
  db.close();
};

async function answers(file: string, workers: number): Promise<SearchAnswer[]> {
  const backend = new SqliteSearchBackend(file, { immutable: true, workers, cacheSize: 0 });
  try {
    const out: SearchAnswer[] = [];
    for (const query of QUERIES) out.push(await backend.search({ query, language: 'en', limit: 10 }));
    return out;
  } finally {
    backend.close();
  }
}

describe('a published generation built by another index schema', () => {
  const base = current();
  const now = generation(base, 'now.db');
  // The version before decision 0085 (schema 9), and the one before the definitions' descriptions (8).
  const before0085 = generation(base, 'schema-9.db', (f) => asWrittenBefore0085(f));
  const schema8 = generation(before0085, 'schema-8.db', sql('DROP TABLE described; DELETE FROM schema_migrations WHERE version >= 9'));
  // The version before the near words' signatures (16, decision 0155): it reads every candidate's
  // words; and the one before the signals' narrow indexes (15, decision 0152): it scans the table.
  const schema16 = generation(
    base,
    'schema-16.db',
    sql(`ALTER TABLE signals DROP COLUMN near_signature; DELETE FROM search_meta WHERE key = 'near_signatures';
      DELETE FROM schema_migrations WHERE version >= 17`),
  );
  const schema15 = generation(schema16, 'schema-15.db', sql(`${DROP_SIGNALS_INDEXES} DELETE FROM schema_migrations WHERE version >= 16`));

  it('answers as it did when every migration since only adds tables, in this thread and on query threads', async () => {
    const expected = await answers(now, 0);
    assert.ok(
      expected.every((a) => a.results.length > 0),
      'every query finds pages',
    );
    for (const file of [before0085, schema8, schema16, schema15]) {
      const db = new DatabaseSync(file, { readOnly: true });
      const built = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE name = 'page_text'").all() as unknown[]).length;
      db.close();
      assert.ok(built < KNOWN, `${file} is of an older schema (${built})`);
      if (file === before0085 || file === schema8) assert.equal(tables, 0, `${file} has no page_text`);
      for (const workers of [0, 1]) {
        const got = await answers(file, workers);
        // The same pages, in the same order, with the same snippets.
        assert.deepEqual(
          got.map((a) => a.results.map((r) => [r.url, r.snippet])),
          expected.map((a) => a.results.map((r) => [r.url, r.snippet])),
          `${file} on ${workers} query threads`,
        );
      }
    }
  });

  it('is refused, saying what to do, when a migration since changed what is there', async () => {
    // Schema 7: before link_words kept blocks (a column, which no stand-in can add).
    const schema7 = generation(
      schema8,
      'schema-7.db',
      sql('ALTER TABLE link_words DROP COLUMN blocks; DELETE FROM schema_migrations WHERE version >= 8'),
    );
    const backend = new SqliteSearchBackend(schema7, { immutable: true, workers: 0 });
    await assert.rejects(
      backend.search({ query: 'kettle', language: 'en', limit: 10 }),
      new RegExp(`built by an older Periscope \\(index schema 7, this one reads ${KNOWN}\\): run npm run index again`),
    );
    backend.close();
  });

  it('is refused when built by a newer Periscope', async () => {
    const newer = generation(
      base,
      'newer.db',
      sql(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${KNOWN + 1}, 'future', 0)`),
    );
    const backend = new SqliteSearchBackend(newer, { immutable: true, workers: 0 });
    await assert.rejects(backend.search({ query: 'kettle', language: 'en', limit: 10 }), /built by a newer Periscope.*upgrade this node/);
    backend.close();
  });
});
