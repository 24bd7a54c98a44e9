import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type ServiceProcess } from '../helpers/service.ts';
import { manifest, runIndex, search, sliceCorpus } from '../helpers/search.ts';

/**
 * A slice of the real corpus, indexed through `npm run index`: every page that the corpus fetched
 * twice under variant addresses, plus every translation of two handbook sections.
 */
const SECTIONS = ['sect.release-lifecycle.html', 'sect.shell-environment.html'];

describe('the corpus slice: duplicates collapse, canonical addresses, language bias', () => {
  let service: ServiceProcess;
  let token: string;
  let indexOutput: string;
  let distinct = 0;
  const rows = manifest();
  const duplicated = new Set(rows.filter((r) => r.set.endsWith('-duplicate')).map((r) => r.canonical));

  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const canonicalOf = new Map(rows.map((r) => [r.uri, r.canonical]));
    const warc = join(dataDir, 'slice.warc.gz');
    const n = await sliceCorpus(
      warc,
      (uri) => duplicated.has(canonicalOf.get(uri) ?? '') || SECTIONS.some((s) => uri.includes('debian-handbook') && uri.endsWith(s)),
    );
    assert.ok(n > 600, `slice has ${n} records`);
    const kept = rows.filter(
      (r) => duplicated.has(r.canonical) || SECTIONS.some((s) => r.uri.includes('debian-handbook') && r.uri.endsWith(s)),
    );
    distinct = new Set(kept.map((r) => r.canonical)).size;
    const r = runIndex(dataDir, [warc]);
    assert.equal(r.status, 0, r.stderr);
    indexOutput = r.stdout + r.stderr;
    service = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0' });
    token = service.createKey({ name: 'corpus', ratePerMinute: 100_000 }).token;
  });
  after(async () => {
    await service.stop();
  });

  it('the indexer reports a summary with the merged duplicates', () => {
    assert.match(indexOutput, /indexed \d+ pages \(\d+ new, 0 replaced, \d+ duplicate addresses merged\)/);
    const merged = Number(/(\d+) duplicate addresses merged/.exec(indexOutput)?.[1]);
    assert.ok(merged >= 300, indexOutput);
  });

  it('the index holds one page per canonical address', async () => {
    const health = (await (await fetch(`${service.url}/healthz`)).json()) as { search: { pages: number } };
    assert.equal(health.search.pages, distinct);
  });

  it('every variant address collapses into its canonical page, shown once', async () => {
    const canonicals = [...duplicated];
    const byCanonical = new Map(rows.filter((r) => r.set.endsWith('-duplicate')).map((r) => [r.canonical, r.uri]));
    let checked = 0;
    for (const canonical of canonicals.filter((_, i) => i % 6 === 0)) {
      const titleQuery =
        canonical
          .replace(/\.html$/, '')
          .split('/')
          .pop()
          ?.replace(/[-_.]/g, ' ') ?? '';
      const r = await search(service.url, token, { query: titleQuery || 'index', language: 'en' });
      assert.equal(r.status, 200);
      const urls = (r.json.results as { url: string }[]).map((x) => x.url);
      assert.equal(new Set(urls).size, urls.length, `duplicate URL for ${titleQuery}`);
      for (const u of urls)
        assert.ok(
          !/#|utm_|:443|^http:|3\.11/.test(u) && u === u.replace(/^https:\/\/[^/]+/, (h) => h.toLowerCase()),
          `variant address shown: ${u} (variant of ${byCanonical.get(canonical)})`,
        );
      checked++;
    }
    assert.ok(checked >= 40);
  });

  it('the Python 3.11 pages show their declared /3/ address', async () => {
    const r = await search(service.url, token, { query: 'codecs replace_errors' });
    const urls = (r.json.results as { url: string }[]).map((x) => x.url);
    assert.equal(urls[0], 'https://docs.python.org/3/library/codecs.html');
  });

  it('the language biases the same query towards the translation asked for', async () => {
    const query = { query: 'csh.cshrc pam_environment' };
    const tops: Record<string, string | undefined> = {};
    for (const language of ['en', 'fr', 'de', 'es', 'ja', 'zh', 'ru', 'pt']) {
      const r = await search(service.url, token, { ...query, language });
      tops[language] = (r.json.results as { url: string }[])[0]?.url;
    }
    assert.equal(tops.en, 'https://debian-handbook.info/browse/en-US/stable/sect.shell-environment.html');
    for (const [lang, region] of [
      ['fr', 'FR'],
      ['de', 'DE'],
      ['es', 'ES'],
      ['ja', 'JP'],
      ['zh', 'CN'],
      ['ru', 'RU'],
      ['pt', 'BR'],
    ]) {
      assert.equal(
        tops[lang as string],
        `https://debian-handbook.info/browse/${lang}-${region}/stable/sect.shell-environment.html`,
        `language ${lang}`,
      );
    }
    // A bias, not a filter: a language with no page still gets the best pages there are.
    const none = await search(service.url, token, { ...query, language: 'sw' });
    assert.ok((none.json.results as unknown[]).length > 0);
  });
});
