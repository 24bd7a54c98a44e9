import { indexContents } from '../lib/service/search/sqlite/test-index-contents.ts';
const [a, b] = process.argv.slice(2) as [string, string];
const x = indexContents(a), y = indexContents(b);
for (const k of new Set([...x.keys(), ...y.keys()])) console.log(x.get(k) === y.get(k) ? 'same' : 'DIFF', k, x.get(k), y.get(k));
