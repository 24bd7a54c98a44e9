import type { PostingList } from './postings.ts';

/**
 * One posting list standing for several terms, each counted at its weight: the pages holding any
 * of them, each page's field-weighted frequencies summed (times the term's weight) and its
 * passages merged. BM25 then scores the blend as one term, with the idf of all the pages holding
 * any of them, the way search engines score a word with its synonyms (Lucene's SynonymQuery), so
 * a page holding three forms of a word does not count three words (decision 0083).
 */
export function blendPostings(lists: readonly { list: PostingList; weight: number }[]): PostingList {
  const freq = new Map<number, number>();
  const places = new Map<number, Set<number>>();
  let withPlaces = false;
  for (const { list, weight } of lists) {
    const { docs, freqs, starts } = list;
    if (starts.length) withPlaces = true;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i] as number;
      freq.set(d, (freq.get(d) ?? 0) + weight * (freqs[i] as number));
      if (!starts.length) continue;
      let held = places.get(d);
      if (!held) places.set(d, (held = new Set()));
      for (const o of list.places.subarray(starts[i], starts[i + 1])) held.add(o);
    }
  }
  const docs = Uint32Array.from([...freq.keys()].sort((a, b) => a - b));
  const out: PostingList = {
    docs,
    freqs: Float32Array.from(docs, (d) => freq.get(d) as number),
    starts: new Uint32Array(0),
    places: new Uint16Array(0),
  };
  if (!withPlaces) return out;
  const starts = new Uint32Array(docs.length + 1);
  const all: number[] = [];
  docs.forEach((d, i) => {
    starts[i] = all.length;
    for (const o of [...(places.get(d) ?? [])].sort((a, b) => a - b)) all.push(o);
  });
  starts[docs.length] = all.length;
  return { ...out, starts, places: Uint16Array.from(all) };
}
