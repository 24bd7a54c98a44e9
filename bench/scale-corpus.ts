import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpusStatistics, writeScaleCorpus } from './_scale-corpus.ts';
import { CORPUS } from './_search-load.ts';

/**
 * `node bench/scale-corpus.ts --pages N --out FILE.warc.gz [--part K/PARTS]`: writes the scale corpus of
 * search-scale.ts alone (the real pages and synthetic distractors up to N pages in all), for an
 * index built apart: 10⁶ pages took about 20 minutes and 6.3 GB here before the distractors
 * defined things (0121: 10⁵ pages 0.63 GB then, 0.67 GB since), and their `npm run index` takes
 * hours, which search-scale.ts then measures with BENCH_SCALE_BUILT (README, decision 0117).
 * `--without-definitions` writes the distractors as decisions 0088 to 0120 had them, defining
 * nothing (decision 0121). `--part K/PARTS` writes part K (from 0) of PARTS: run the parts side by
 * side, one a core, and `cat` them in order into the corpus (10⁶ pages in two halves took 14
 * minutes here, decision 0129).
 */
const USAGE = 'usage: node bench/scale-corpus.ts --pages N --out FILE.warc.gz [--part K/PARTS] [--without-definitions]';
function usage(why?: string): never {
  console.error(why ? `scale-corpus: ${why}\n${USAGE}` : USAGE);
  process.exit(2);
}
const options = {
  pages: { type: 'string' },
  out: { type: 'string' },
  part: { type: 'string', default: '0/1' },
  'without-definitions': { type: 'boolean', default: false },
} as const;
function parse() {
  try {
    return parseArgs({ options }).values;
  } catch (err) {
    return usage((err as Error).message);
  }
}
const values = parse();
const pages = Number(values.pages);
const part = /^(\d+)\/(\d+)$/.exec(values.part);
const [k, parts] = [Number(part?.[1]), Number(part?.[2])];
if (!values.out || !Number.isInteger(pages) || pages < 1 || !part || parts < 1 || k >= parts) usage();
const warc = join(CORPUS, 'docs.warc.gz');
// The real pages as the index counts them: the manifest's distinct canonical addresses.
const real = new Set(
  readFileSync(join(CORPUS, 'manifest.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t')[1]),
).size;
const t0 = performance.now();
const synthetic = await writeScaleCorpus(warc, values.out, pages, real, await corpusStatistics(warc), {
  definitions: !values['without-definitions'],
  part: [k, parts],
});
console.log(
  `${values.out}: ${k === 0 ? real : 0} real pages and ${synthetic} synthetic, ${(statSync(values.out).size / 1e9).toFixed(2)} GB, in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
