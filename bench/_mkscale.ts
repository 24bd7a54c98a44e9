import { corpusStatistics, writeScaleCorpus } from './_scale-corpus.ts';
const REAL = new URL('../../shared/corpus/docs.warc.gz', import.meta.url).pathname;
const [out, size] = process.argv.slice(2);
const stats = await corpusStatistics(REAL);
const n = await writeScaleCorpus(REAL, out!, Number(size), 5058, stats);
console.log('synthetic', n);
