import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { POSTINGS_FORMAT } from '#service/search/sqlite/postings.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { asWrittenBefore0085 } from '#service/search/sqlite/test-index-before-0085.ts';
import { page, runIndex, search } from '../helpers/search.ts';

type Result = { url: string; snippet: string };

/** Two pages, one linked from the other, with the answer far down a long page. */
function writeSite(): string {
  const site = mkdtempSync(join(tmpdir(), 'periscope-site-'));
  const filler = Array.from({ length: 200 }, (_, i) => `<p>Paragraph ${i} is about the garden and its hedges.</p>`).join('');
  writeFileSync(
    join(site, 'kettle.html'),
    page('Kettles', `<h1>Kettles</h1>${filler}<p>Use citric acid to descale the kettle every month.</p>`),
  );
  writeFileSync(join(site, 'index.html'), page('Manual', '<h1>Manual</h1><p>Start with <a href="kettle.html">the kettles</a>.</p>'));
  return site;
}

/**
 * An index written before the question ranking (decision 0082: schema 6, postings 1, no authority
 * and no inbound link blocks) keeps answering once the service has migrated it, and the next
 * `npm run index` of its sources builds it anew in the current format.
 */
describe('an index from before the question ranking', () => {
  let dataDir: string;
  let site: string;
  let service: ServiceProcess | null = null;
  const file = () => join(dataDir, 'index.db');

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    site = writeSite();
    const r = runIndex(dataDir, [site, '--base-url', 'https://docs.falcot.test/', '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    asWrittenBefore0085(file());
    const db = new DatabaseSync(file());
    db.exec(`ALTER TABLE signals DROP COLUMN authority; ALTER TABLE link_words DROP COLUMN blocks; DROP TABLE described;
      UPDATE search_meta SET value = 'postings 1; weights title=8' WHERE key = 'postings';
      DELETE FROM schema_migrations WHERE version >= 7;`);
    db.close();
  });
  after(async () => {
    await service?.stop();
  });

  it('is migrated when the service opens it and answers a question, from FTS5 until it is rebuilt', async () => {
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    const token = service.createKey({ name: 'upgrade' }).token;
    const r = await search(service.url, token, { query: 'how do I descale the kettle' });
    assert.equal(r.status, 200);
    assert.equal((r.json.results as Result[])[0]?.url, 'https://docs.falcot.test/kettle.html');
    const db = new DatabaseSync(file(), { readOnly: true });
    const authorities = db.prepare('SELECT DISTINCT authority FROM signals').all() as { authority: number }[];
    assert.deepEqual(
      authorities.map((a) => a.authority),
      [1],
      'every page of the old index weighs the same',
    );
    db.close();
    await service.stop();
    service = null;
  });

  it('is rebuilt in the current format by the next npm run index, and answers from anywhere in a page', async () => {
    const r = runIndex(dataDir, [site, '--base-url', 'https://docs.falcot.test/', '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    const db = new DatabaseSync(file(), { readOnly: true });
    const meta = db.prepare("SELECT value FROM search_meta WHERE key = 'postings'").get() as { value: string };
    assert.equal(meta.value, POSTINGS_FORMAT);
    const linked = db.prepare("SELECT authority FROM signals WHERE url LIKE '%/kettle.html'").get() as { authority: number };
    assert.ok(linked.authority > 1, `the linked page's authority is ${linked.authority}`);
    const blocks = db.prepare('SELECT COUNT(*) AS n FROM link_words WHERE blocks IS NOT NULL').get() as { n: number };
    assert.ok(blocks.n > 0);
    db.close();
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    const token = service.createKey({ name: 'upgraded' }).token;
    const answer = await search(service.url, token, { query: 'how do I descale the kettle' });
    assert.equal(answer.status, 200);
    const [top] = answer.json.results as Result[];
    assert.equal(top?.url, 'https://docs.falcot.test/kettle.html');
    assert.match(top?.snippet ?? '', /citric acid to descale the kettle/, 'the passage 200 paragraphs down');
  });
});
