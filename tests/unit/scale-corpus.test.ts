import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { corpusStatistics, heapsExponent, poolSize, writeScaleCorpus } from '../../bench/_scale-corpus.ts';
import { definitionHeads } from '../../lib/service/search/definitions.ts';
import { extractHtml, type Extracted } from '../../lib/service/search/extract.ts';
import { hostOf } from '../../lib/service/search/sites.ts';
import { indexTokens, words as partsOf } from '../../lib/service/search/tokenize.ts';
import { openWarcFile, warcPages, warcRecords } from '../../lib/service/search/sources/warc.ts';
import { normalizeUrl, urlKey } from '../../lib/service/search/url.ts';
import { sliceCorpus } from '../helpers/search.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-scale-corpus-'));
after(() => rmSync(dir, { recursive: true, force: true }));

type Page = { url: string; x: Extracted };
/** A name on this many real pages or more is drawn by its count (GoodTuringDraw's Katz threshold). */
const FREQUENT = 5;

/** Each page's address and what the index keeps of it, real and synthetic apart. */
async function extracted(warc: string): Promise<{ real: Page[]; synthetic: Page[] }> {
  const out = { real: [] as Page[], synthetic: [] as Page[] };
  for await (const item of warcPages(warcRecords(await openWarcFile(warc)))) {
    if (!('page' in item)) continue;
    const page = { url: item.page.url, x: extractHtml(item.page.html, item.page.url) };
    (/^https:\/\/w\d{4}\.org\//.test(item.page.url) ? out.synthetic : out.real).push(page);
  }
  return out;
}

/** Each page's distinct body words. */
const bodies = (pages: readonly Page[]) => pages.map(({ x }) => new Set(x.blocks.flatMap((b) => b.split(/\s+/).filter(Boolean))));

/** The distinct words of the pages' titles, headings, blocks and defined names. */
const vocabulary = (pages: readonly Page[]) =>
  new Set(pages.flatMap(({ x }) => [x.title, ...x.headings, ...x.blocks, ...x.terms].flatMap((t) => t.split(/\s+/).filter(Boolean))));

/** Each page's distinct index terms (tokenize.ts: words, their parts and the joined forms of an
 * identifier's) of its title, headings and blocks. */
const terms = (pages: readonly Page[]) => pages.map(({ x }) => new Set(indexTokens([x.title, ...x.headings, ...x.blocks].join('\n'))));

const mean = (pages: readonly Page[], of: (x: Extracted) => number) => pages.reduce((a, p) => a + of(p.x), 0) / pages.length;

/** The share of the pages' links whose text names a definition of the page they point at. */
function namingShare(pages: readonly Page[]): number {
  const defines = new Map(pages.map(({ url, x }) => [url, new Set(x.terms.flatMap((t) => definitionHeads(t).map((h) => h.head)))]));
  let links = 0;
  let naming = 0;
  for (const { x } of pages)
    for (const l of x.links) {
      links++;
      const head = definitionHeads(l.text)[0]?.head;
      if (head && defines.get(l.url)?.has(head)) naming++;
    }
  return naming / links;
}

/** The synthetic pages' figure is within a third of the real pages' either way (two thirds to three halves). */
function near(what: string, synthetic: number, real: number): void {
  assert.ok(real > 0, `the real pages have ${what}`);
  const ratio = synthetic / real;
  assert.ok(ratio > 0.67 && ratio < 1.5, `${what}: ${synthetic.toFixed(2)} on a synthetic page, ${real.toFixed(2)} on a real one`);
}

const share = (pages: readonly Set<string>[], word: string) => pages.filter((p) => p.has(word)).length / pages.length;

describe('the scale corpus (bench/_scale-corpus.ts)', () => {
  const real = join(dir, 'real.warc.gz');
  const out = join(dir, 'scale.warc.gz');
  let n = 0;
  let written: { real: Page[]; synthetic: Page[] };
  before(async () => {
    n = await sliceCorpus(real, (uri) => uri.startsWith('https://www.postgresql.org/docs/15/sql-'));
    assert.ok(n > 50, `${n} real pages`);
    const synthetic = await writeScaleCorpus(real, out, n + 800, n, await corpusStatistics(real));
    assert.equal(synthetic, 800);
    written = await extracted(out);
  });

  it('puts each word on its share of the real pages, not on more because it repeats where it is', () => {
    const pages = { real: bodies(written.real), synthetic: bodies(written.synthetic) };
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

  it('puts a word of one real page onto as few distractors as Good–Turing has it, and words of no real page besides', () => {
    const pages = { real: bodies(written.real), synthetic: bodies(written.synthetic) };
    const counts = new Map<string, number>();
    for (const p of pages.real) for (const w of p) counts.set(w, (counts.get(w) ?? 0) + 1);
    const seen = (r: number) => [...counts].filter(([, c]) => c === r).map(([w]) => w);
    const [once, twice] = [seen(1), seen(2)];
    // A word seen once that a fresh word can be too (`configuration);`: its segments are all
    // other words' as well) is left out: only its Good–Turing share brings one with a segment of
    // its own (`b384c441`).
    const segments = new Map<string, number>();
    for (const w of vocabulary(written.real)) for (const s of new Set(partsOf(w))) segments.set(s, (segments.get(s) ?? 0) + 1);
    const own = once.filter((w) => partsOf(w).some((s) => segments.get(s) === 1));
    const mean = (words: readonly string[]) => words.reduce((a, w) => a + share(pages.synthetic, w), 0) / words.length;
    // Drawn by its count, a word of one page of n is on 1/n of the distractors; Good–Turing puts it
    // on 2·N₂/N₁ of a page.
    const byCount = 1 / pages.real.length;
    const estimate = (2 * twice.length) / once.length / pages.real.length;
    assert.ok(
      own.length > 500 && twice.length > 100,
      `${own.length} words seen once with a segment of their own, ${twice.length} words twice`,
    );
    const onDistractors = mean(own);
    assert.ok(
      onDistractors < 0.7 * byCount && onDistractors > 0.5 * estimate && onDistractors < 2 * estimate,
      `a word of one real page on ${onDistractors.toFixed(4)} of the distractors (by count ${byCount.toFixed(4)}, Good–Turing ${estimate.toFixed(4)})`,
    );
    // The words of no real page take at most the share of the words seen once (N₁ / N): fewer, as
    // a fresh word of known segments is a real word.
    let incidences = 0;
    for (const c of counts.values()) incidences += c;
    let fresh = 0;
    let all = 0;
    for (const p of pages.synthetic)
      for (const w of p) {
        all++;
        if (!counts.has(w)) fresh++;
      }
    const expected = once.length / incidences;
    assert.ok(
      fresh / all > 0.1 * expected && fresh / all < 1.25 * expected,
      `${(fresh / all).toFixed(3)} of words fresh, N₁/N ${expected.toFixed(3)}`,
    );
  });

  it("holds as many different index terms as Heaps' law of the real pages' terms has a corpus of its size hold", () => {
    const real = terms(written.real);
    const pages = [...real, ...terms(written.synthetic)];
    const counts = new Map<string, number>();
    for (const p of real) for (const t of p) counts.set(t, (counts.get(t) ?? 0) + 1);
    const ofCount = new Map<number, number>();
    for (const r of counts.values()) ofCount.set(r, (ofCount.get(r) ?? 0) + 1);
    const beta = heapsExponent(ofCount);
    // Real text's vocabulary grows as N^β with β between about 0.4 and 0.8.
    assert.ok(beta > 0.3 && beta < 0.9, `Heaps' exponent ${beta.toFixed(2)}`);
    const projected = counts.size * (pages.length / real.length) ** beta;
    const held = new Set(pages.flatMap((p) => [...p])).size;
    // 1.13 times here. A fresh word made anew letter by letter from a word seen once (0133) made
    // 2.6 times: most words seen once are known words with their punctuation, or known parts joined.
    assert.ok(
      held > 0.75 * projected && held < 1.33 * projected,
      `${held} terms in ${pages.length} pages, where Heaps' law of the ${real.length} real pages' ${counts.size} has ${projected.toFixed(0)} (β ${beta.toFixed(2)})`,
    );
  });

  it("measures Heaps' exponent as the vocabulary of half the units against all of them", () => {
    // Every item seen once: half the units hold half of them, so V = V½·2 and β = 1.
    assert.equal(heapsExponent(new Map([[1, 1000]])), 1);
    // Items seen very often are all in any half: no growth.
    assert.ok(heapsExponent(new Map([[60, 1000]])) < 1e-9);
    assert.equal(heapsExponent(new Map()), 0);
  });

  it('sizes a pool so that its draws hold as many different items as wanted', () => {
    const held = (pool: number, draws: number) => pool * -Math.expm1(-draws / pool);
    for (const [draws, wanted] of [
      [1000, 500],
      [1e6, 2e4],
      [5e7, 4.8e6],
    ] as const) {
      const pool = poolSize(draws, wanted);
      assert.ok(pool >= wanted, `a pool of ${pool} for ${wanted}`);
      assert.ok(Math.abs(held(pool, draws) - wanted) < 1e-6 * wanted, `${held(pool, draws)} held of ${wanted} wanted`);
    }
    // Draws too few to hold as many: every draw its own, about.
    assert.ok(held(poolSize(1000, 2000), 1000) > 999);
    assert.equal(poolSize(1000, 0), 1);
  });

  it('defines names, describes them, marks them for an index and names them in links as the real pages do', () => {
    const { real: r, synthetic: s } = written;
    near(
      'pages with a described definition',
      mean(s, (x) => +(x.described.length > 0)),
      mean(r, (x) => +(x.described.length > 0)),
    );
    near(
      'described definitions a page',
      mean(s, (x) => x.described.length),
      mean(r, (x) => x.described.length),
    );
    near(
      'defined names a page',
      mean(s, (x) => x.terms.length),
      mean(r, (x) => x.terms.length),
    );
    near(
      'pages with index anchors',
      mean(s, (x) => +(x.nearAnchors.length > 0)),
      mean(r, (x) => +(x.nearAnchors.length > 0)),
    );
    near('links naming a definition of their target', namingShare(s), namingShare(r));
    // Most names are another manual's, as many as the real pages' names seen once would have it
    // (Good–Turing): the real pages' own on one page apiece would otherwise fill the distractors.
    const pagesOf = new Map<string, number>();
    for (const { x } of r) for (const t of new Set(x.terms)) pagesOf.set(t, (pagesOf.get(t) ?? 0) + 1);
    const once = [...pagesOf.values()].filter((c) => c === 1).length / [...pagesOf.values()].reduce((a, c) => a + c, 0);
    const drawn = s.flatMap(({ x }) => [...new Set(x.terms)]);
    near('names of no real page', drawn.filter((t) => !pagesOf.has(t)).length / drawn.length, once);
    // And a real name defined on one page is defined on few more: far fewer than by its count.
    const onSynthetic = new Map<string, number>();
    for (const t of drawn) onSynthetic.set(t, (onSynthetic.get(t) ?? 0) + 1);
    const perName = (real: (c: number) => boolean) => {
      const names = [...pagesOf].filter(([, c]) => real(c));
      return names.reduce((a, [t, c]) => a + (onSynthetic.get(t) ?? 0) / c, 0) / names.length;
    };
    assert.ok(perName((c) => c === 1) < 0.5 * perName((c) => c >= FREQUENT), 'a name seen once is drawn less than its count says');
  });

  it('sends its links where the real pages send theirs: into the corpus as often, and there to their own site', () => {
    const { real: r, synthetic: s } = written;
    const keys = new Set<string>();
    for (const { url, x } of [...r, ...s]) for (const address of [normalizeUrl(url), x.canonical]) if (address) keys.add(urlKey(address));
    const targets = (pages: readonly Page[]) => {
      let links = 0;
      let inside = 0;
      let own = 0;
      for (const { url, x } of pages)
        for (const l of x.links) {
          links++;
          if (!keys.has(urlKey(l.url))) continue;
          inside++;
          if (hostOf(l.url) === hostOf(url)) own++;
        }
      return { inside: inside / links, own: own / inside };
    };
    const [synthetic, realPages] = [targets(s), targets(r)];
    near('links landing on a page of the corpus', synthetic.inside, realPages.inside);
    near('of those, links to their own site', synthetic.own, realPages.own);
    assert.ok(synthetic.inside < 0.9, `${synthetic.inside.toFixed(2)} of the links land in the corpus, not all`);
  });

  it('writes the corpus in parts that, one after another, hold the corpus written whole', async () => {
    const stats = await corpusStatistics(real);
    const parts = [0, 1, 2].map((k) => join(dir, `part${k}.warc.gz`));
    const counts = [];
    for (const [k, file] of parts.entries()) counts.push(await writeScaleCorpus(real, file, n + 800, n, stats, { part: [k, 3] }));
    assert.deepEqual(counts, [267, 267, 266]);
    const pages = [];
    for (const file of parts) pages.push(await extracted(file));
    assert.equal(pages[0]?.real.length, written.real.length, 'the real pages in the first part');
    assert.ok(
      pages.slice(1).every((p) => !p.real.length),
      'and only there',
    );
    const synthetic = pages.flatMap((p) => p.synthetic);
    assert.equal(synthetic.length, 800);
    for (let i = 0; i < 800; i++) {
      const [a, b] = [synthetic[i] as Page, written.synthetic[i] as Page];
      assert.equal(a.url, b.url);
      assert.deepEqual(
        [a.x.title, a.x.headings, a.x.blocks, a.x.links, a.x.terms],
        [b.x.title, b.x.headings, b.x.blocks, b.x.links, b.x.terms],
        a.url,
      );
    }
    await assert.rejects(writeScaleCorpus(real, join(dir, 'no.warc.gz'), n + 800, n, stats, { part: [3, 3] }), /no part 3 of 3/);
  });

  it('writes the distractors of before, defining nothing, when asked to', async () => {
    const plain = join(dir, 'plain.warc.gz');
    // As many pages as with definitions: the pools of fresh words grow with the corpus.
    await writeScaleCorpus(real, plain, n + 800, n, await corpusStatistics(real), { definitions: false });
    const { synthetic } = await extracted(plain);
    assert.equal(synthetic.length, 800);
    assert.equal(
      mean(synthetic, (x) => x.described.length + x.nearAnchors.length),
      0,
    );
    assert.equal(namingShare(synthetic), 0);
    // The same titles and headings as the same pages written with definitions: a heading is drawn
    // after the words and links of the blocks before it, so the two kept in step.
    const first = written.synthetic.slice(0, 200);
    for (let i = 0; i < 200; i++) {
      const [a, b] = [synthetic[i] as Page, first[i] as Page];
      assert.equal(a.url, b.url);
      assert.equal(a.x.title, b.x.title);
      assert.deepEqual(a.x.headings, b.x.headings);
    }
  });
});
