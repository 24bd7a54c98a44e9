import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { corpusStatistics, writeScaleCorpus } from '../../bench/_scale-corpus.ts';
import { extractHtml } from '../../lib/service/search/extract.ts';
import { openWarcFile, warcPages, warcRecords } from '../../lib/service/search/sources/warc.ts';
import { sliceCorpus } from '../helpers/search.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-scale-corpus-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Each page's distinct body words, real and synthetic apart. */
async function bodies(warc: string): Promise<{ real: Set<string>[]; synthetic: Set<string>[] }> {
  const out = { real: [] as Set<string>[], synthetic: [] as Set<string>[] };
  for await (const item of warcPages(warcRecords(await openWarcFile(warc)))) {
    if (!('page' in item)) continue;
    const x = extractHtml(item.page.html, item.page.url);
    const words = new Set(x.blocks.flatMap((b) => b.split(/\s+/).filter(Boolean)));
    (/^https:\/\/w\d{4}\.org\//.test(item.page.url) ? out.synthetic : out.real).push(words);
  }
  return out;
}

const share = (pages: readonly Set<string>[], word: string) => pages.filter((p) => p.has(word)).length / pages.length;

describe('the scale corpus (bench/_scale-corpus.ts)', () => {
  it('puts each word on its share of the real pages, not on more because it repeats where it is', async () => {
    const real = join(dir, 'real.warc.gz');
    const n = await sliceCorpus(real, (uri) => uri.startsWith('https://www.postgresql.org/docs/15/sql-'));
    assert.ok(n > 50, `${n} real pages`);
    const out = join(dir, 'scale.warc.gz');
    const synthetic = await writeScaleCorpus(real, out, n + 800, n, await corpusStatistics(real));
    assert.equal(synthetic, 800);
    const pages = await bodies(out);
    assert.equal(pages.synthetic.length, 800);

    // The words on 5 to 50 % of the real pages: topical words (`table`, `column`, `index`), which a
    // page that holds repeats. Drawn one by one by their counts, such a word goes onto far more
    // pages than it is on (1.35 times here, 1.8 times for the whole corpus's query words).
    const counts = new Map<string, number>();
    for (const p of pages.real) for (const w of p) counts.set(w, (counts.get(w) ?? 0) + 1);
    const topical = [...counts].filter(([, c]) => c >= 0.05 * pages.real.length && c <= 0.5 * pages.real.length).map(([w]) => w);
    assert.ok(topical.length > 50, `${topical.length} topical words`);
    let logRatio = 0;
    for (const w of topical) logRatio += Math.log((share(pages.synthetic, w) + 1e-3) / share(pages.real, w));
    const mean = logRatio / topical.length;
    assert.ok(Math.abs(mean) < 0.15, `topical words on ${Math.exp(mean).toFixed(2)} times their real share of pages`);

    // And a page holds as many different words as the page whose shape it copies.
    const distinct = (list: readonly Set<string>[]) => list.reduce((a, p) => a + p.size, 0) / list.length;
    const ratio = distinct(pages.synthetic) / distinct(pages.real);
    assert.ok(ratio > 0.85 && ratio < 1.15, `${ratio.toFixed(2)} times the real pages' distinct words`);
  });
});
