import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STOP_WORD_LANGUAGES } from '#shared/stop-words.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { manifest, runIndex, search, sliceCorpus } from '../helpers/search.ts';

/**
 * Questions in the language they are asked in (decision 0083), on a slice of the real corpus
 * through `npm run index` and the API: every French page of the handbook and every translation of
 * its firewall section. (On this slice the question found its page before stop words too: `le` is
 * in nearly every page, so it weighs nothing; lib/service/search/sqlite/languages.test.ts builds
 * an index where it weighs as in the whole corpus.)
 */
const FIREWALL = 'sect.firewall-packet-filtering.html';
const FRENCH = 'https://debian-handbook.info/browse/fr-FR/stable/';
const keep = (uri: string) => uri.startsWith(FRENCH) || (uri.includes('debian-handbook') && uri.endsWith(FIREWALL));

describe('the languages of the corpus', () => {
  let service: ServiceProcess;
  let token: string;
  const rows = manifest();

  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const warc = join(dataDir, 'slice.warc.gz');
    assert.ok((await sliceCorpus(warc, keep)) > 150);
    const r = runIndex(dataDir, [warc]);
    assert.equal(r.status, 0, r.stderr);
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    token = service.createKey({ name: 'languages', ratePerMinute: 100_000 }).token;
  });
  after(async () => {
    await service.stop();
  });

  it('have stop words each, but those read as character pairs', () => {
    const languages = new Set<string>();
    for (const { canonical } of rows) {
      const m = /\/browse\/([a-z]{2})-[A-Z]{2}\/|debian-reference\/[^/]+\.([a-z]{2})(?:-[a-z]+)?\.html$/.exec(canonical);
      if (m) languages.add((m[1] ?? m[2]) as string);
    }
    assert.equal(languages.size, 25);
    assert.deepEqual([...languages].filter((l) => !STOP_WORD_LANGUAGES.includes(l)).sort(), ['ja', 'ko', 'zh']);
  });

  it('a French question finds its page with French selected', async () => {
    const r = await search(service.url, token, { query: 'comment configurer le pare-feu', language: 'fr' });
    const urls = (r.json.results as { url: string }[]).map((x) => x.url);
    assert.ok(urls.includes(`${FRENCH}${FIREWALL}`), urls.join('\n'));
  });
});
