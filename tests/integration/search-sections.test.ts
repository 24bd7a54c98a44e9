import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { asWrittenBefore0085 } from '#service/search/sqlite/test-index-before-0085.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { page, runIndex, search } from '../helpers/search.ts';

type Result = { url: string; title: string; section?: string[]; favicon?: string };

/** A small manual: pages with a breadcrumb and an icon, a page with neither. */
function writeSite(): string {
  const site = mkdtempSync(join(tmpdir(), 'periscope-site-'));
  mkdirSync(join(site, 'guide'));
  const crumbs = '<ol class="breadcrumb"><li><a href="/">Falcot Manual</a></li><li><a href="/guide/">Chapter 2. Kitchen</a></li></ol>';
  writeFileSync(
    join(site, 'guide', 'kettle.html'),
    page(
      '2.1. Descaling the kettle',
      `${crumbs}<h1>2.1. Descaling the kettle</h1><p>Use citric acid to descale the kettle every month.</p>`,
      '<link rel="icon" href="/static/falcot.png">',
    ),
  );
  writeFileSync(join(site, 'plain.html'), page('Toaster notes', '<h1>Toaster notes</h1><p>The toaster browns bread evenly.</p>'));
  return site;
}

async function serve(dataDir: string): Promise<{ service: ServiceProcess; token: string }> {
  const service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
  return { service, token: service.createKey({ name: 'sections' }).token };
}

describe('POST /v0/search: section paths and favicons from the index', () => {
  let dataDir: string;
  let service: ServiceProcess;
  let token: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const r = runIndex(dataDir, [writeSite(), '--base-url', 'https://docs.falcot.test/', '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    ({ service, token } = await serve(dataDir));
  });
  after(async () => {
    await service.stop();
  });

  it('a result carries its section path and its site icon; a page that says neither carries none', async () => {
    const r = await search(service.url, token, { query: 'descale kettle' });
    assert.equal(r.status, 200);
    const [top] = r.json.results as Result[];
    assert.equal(top?.url, 'https://docs.falcot.test/guide/kettle.html');
    assert.deepEqual(top?.section, ['Falcot Manual', 'Chapter 2. Kitchen', '2.1. Descaling the kettle']);
    assert.equal(top?.favicon, 'https://docs.falcot.test/static/falcot.png');

    const plain = (await search(service.url, token, { query: 'toaster bread' })).json.results as Result[];
    assert.equal(plain[0]?.url, 'https://docs.falcot.test/plain.html');
    assert.equal(plain[0]?.section, undefined);
    // The icon is the site's, which another of its pages declared.
    assert.equal(plain[0]?.favicon, 'https://docs.falcot.test/static/falcot.png');
  });

  it('an index from before sections and icons is migrated and answers, without them until reindexed', async () => {
    await service.stop();
    // Make the index what a previous version wrote: no kinds, sections, icons, link contexts or
    // authority, schema version 4.
    asWrittenBefore0085(join(dataDir, 'index.db'));
    const db = new DatabaseSync(join(dataDir, 'index.db'));
    db.exec(`DROP TABLE link_words; ALTER TABLE links DROP COLUMN context; ALTER TABLE signals DROP COLUMN authority;
      DROP TABLE sites; ALTER TABLE defs DROP COLUMN kind; ALTER TABLE signals DROP COLUMN section;
      ALTER TABLE pages DROP COLUMN section; DROP TABLE described; DELETE FROM schema_migrations WHERE version >= 5;`);
    db.close();
    ({ service, token } = await serve(dataDir));
    const before = await search(service.url, token, { query: 'descale kettle' });
    assert.equal(before.status, 200);
    const [top] = before.json.results as Result[];
    assert.equal(top?.url, 'https://docs.falcot.test/guide/kettle.html');
    assert.equal(top?.section, undefined);
    assert.equal(top?.favicon, undefined);
  });
});
